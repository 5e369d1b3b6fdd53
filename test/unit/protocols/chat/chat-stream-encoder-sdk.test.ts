/**
 * The stream encoder against the official OpenAI SDK's own accumulator: frames must parse, and
 * the accumulated completion must equal what encodeResponse renders for the same answer.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { APIError } from 'openai';
import { GatewayError } from '../../../../src/errors/gateway-error';
import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import { unwrapOpaque } from '../../../../src/protocols/shared/wrap-opaque';
import { chatCodec } from '../../../../src/protocols/chat';
import { chatClient, sseResponse } from '../../../support/sdk-chat';
import { accumulateIrEvents } from './ir-accumulator';
import { captureToSse, chatCaptureDir, NOW, testContext } from './chat-test-context';

const MODEL = 'catalog-model';

function encodeStream(events: readonly IrStreamEvent[], includeUsage = true, finishWith: 'end' | GatewayError = 'end'): string[] {
  const encoder = chatCodec.inbound.createStreamEncoder({ model: MODEL, includeUsage }, testContext());
  const frames: string[] = [];
  for (const event of events) frames.push(...encoder.push(event));
  frames.push(...(finishWith === 'end' ? encoder.end() : encoder.fail(finishWith)));
  return frames;
}

async function sdkFinal(frames: readonly string[]): Promise<Record<string, unknown>> {
  const client = chatClient(() => sseResponse(frames));
  const stream = client.chat.completions.stream({
    model: MODEL,
    messages: [{ role: 'user', content: 'hi' }],
    stream_options: { include_usage: true },
  });
  return (await stream.finalChatCompletion()) as unknown as Record<string, unknown>;
}

/** The SDK adds `parsed: null` and keeps only the last `reasoning_content` delta (an unknown field). */
function withoutSdkArtifacts(completion: Record<string, unknown>): Record<string, unknown> {
  const choices = completion.choices as Array<{ message: Record<string, unknown> }>;
  return {
    ...completion,
    choices: choices.map((choice) => {
      const { parsed: _parsed, reasoning_content: _reasoning, ...message } = choice.message;
      return { ...choice, message };
    }),
  };
}

function nonStreamed(events: readonly IrStreamEvent[]): Record<string, unknown> {
  const { response } = accumulateIrEvents(events);
  return withoutSdkArtifacts(chatCodec.inbound.encodeResponse(response, { model: MODEL }, testContext()));
}

function dataOf(frames: readonly string[]): unknown[] {
  return frames.map((frame) => {
    expect(frame.startsWith('data: ')).toBe(true);
    expect(frame.endsWith('\n\n')).toBe(true);
    const payload = frame.slice(6, -2);
    return payload === '[DONE]' ? '[DONE]' : JSON.parse(payload);
  });
}

function streamedReasoning(frames: readonly string[]): string {
  return dataOf(frames)
    .map((data) => {
      const delta = (data as { choices?: Array<{ delta?: { reasoning_content?: string } }> }).choices?.[0]?.delta;
      return delta?.reasoning_content ?? '';
    })
    .join('');
}

const usage = { inputTokens: 10, cacheReadTokens: 4, cacheWriteTokens: 2, outputTokens: 30, reasoningTokens: 12 };
const messagesSignature = { origin: 'messages' as const, value: 'EqQBCkYIBxgCKkD-signature' };
const geminiSignature = { origin: 'generate-content' as const, value: 'CiQB0e2Kb-thought-signature' };

/** Event sequences as the other protocols' decoders produce them. */
const SEQUENCES: Record<string, IrStreamEvent[]> = {
  'plain text': [
    { type: 'start', id: 'chatcmpl-abc', model: 'up' },
    { type: 'block_start', index: 0, block: { kind: 'text' } },
    { type: 'text_delta', index: 0, text: 'Hello' },
    { type: 'text_delta', index: 0, text: ', world' },
    { type: 'block_end', index: 0 },
    { type: 'finish', finish: { unified: 'stop', raw: 'end_turn' } },
    { type: 'usage', usage },
  ],
  'Messages thinking, text, then two tool calls (tool indexes are per tool, not per block)': [
    { type: 'start', id: 'msg_01', model: 'up' },
    { type: 'block_start', index: 0, block: { kind: 'reasoning' } },
    { type: 'reasoning_delta', index: 0, text: 'Let me think. ' },
    { type: 'reasoning_delta', index: 0, text: 'Two lookups.' },
    { type: 'reasoning_opaque', index: 0, field: 'signature', value: messagesSignature },
    { type: 'block_end', index: 0 },
    { type: 'block_start', index: 1, block: { kind: 'text' } },
    { type: 'text_delta', index: 1, text: 'Checking.' },
    { type: 'block_end', index: 1 },
    { type: 'block_start', index: 2, block: { kind: 'tool_call', id: 'toolu_01', name: 'weather' } },
    { type: 'tool_args_delta', index: 2, json: '{"city":' },
    { type: 'tool_args_delta', index: 2, json: '"Paris"}' },
    { type: 'block_end', index: 2 },
    { type: 'block_start', index: 3, block: { kind: 'tool_call', id: 'toolu_02', name: 'clock' } },
    { type: 'block_end', index: 3 },
    { type: 'usage', usage },
    { type: 'finish', finish: { unified: 'tool_calls', raw: 'tool_use' } },
  ],
  'Messages redacted thinking between two thinking blocks': [
    { type: 'start', id: 'msg_02', model: 'up' },
    { type: 'block_start', index: 0, block: { kind: 'reasoning' } },
    { type: 'reasoning_delta', index: 0, text: 'first' },
    { type: 'reasoning_opaque', index: 0, field: 'signature', value: messagesSignature },
    { type: 'block_end', index: 0 },
    { type: 'block_start', index: 1, block: { kind: 'reasoning' } },
    { type: 'reasoning_opaque', index: 1, field: 'redacted', value: { origin: 'messages', value: 'redacted-bytes' } },
    { type: 'block_end', index: 1 },
    { type: 'block_start', index: 2, block: { kind: 'text' } },
    { type: 'text_delta', index: 2, text: 'done' },
    { type: 'block_end', index: 2 },
    { type: 'finish', finish: { unified: 'stop', raw: 'end_turn' } },
    { type: 'usage', usage },
  ],
  'Generate-Content tool call with a thought signature, reported as STOP': [
    { type: 'start', id: 'resp-gc', model: 'up' },
    { type: 'block_start', index: 0, block: { kind: 'tool_call', id: 'gc-call-1', name: 'lookup', signature: geminiSignature } },
    { type: 'tool_args_delta', index: 0, json: '{"q":"x"}' },
    { type: 'block_end', index: 0 },
    { type: 'finish', finish: { unified: 'stop', raw: 'STOP' } },
    { type: 'usage', usage },
  ],
  'Responses encrypted reasoning with an item id': [
    { type: 'start', id: 'resp_1', model: 'up' },
    { type: 'block_start', index: 0, block: { kind: 'reasoning', itemId: { origin: 'responses', value: 'rs_1' } } },
    { type: 'reasoning_delta', index: 0, text: 'summary' },
    { type: 'reasoning_opaque', index: 0, field: 'encrypted', value: { origin: 'responses', value: 'gAAAA-encrypted' } },
    { type: 'block_end', index: 0 },
    { type: 'block_start', index: 1, block: { kind: 'text' } },
    { type: 'text_delta', index: 1, text: 'answer' },
    { type: 'block_end', index: 1 },
    { type: 'usage', usage },
    { type: 'finish', finish: { unified: 'stop', raw: 'completed' } },
  ],
  'refusal with content filter': [
    { type: 'start', id: 'chatcmpl-r', model: 'up' },
    { type: 'block_start', index: 0, block: { kind: 'refusal' } },
    { type: 'refusal_delta', index: 0, text: 'I cannot help with that.' },
    { type: 'block_end', index: 0 },
    { type: 'finish', finish: { unified: 'content_filter', raw: 'refusal' } },
    { type: 'usage', usage },
  ],
  'length, with no start event and an unterminated block': [
    { type: 'block_start', index: 0, block: { kind: 'text' } },
    { type: 'text_delta', index: 0, text: 'cut' },
    { type: 'usage', usage },
    { type: 'finish', finish: { unified: 'length', raw: 'max_tokens' } },
  ],
};

describe('chat stream encoder through the official SDK', () => {
  it.each(Object.entries(SEQUENCES))('%s', async (_name, events) => {
    const frames = encodeStream(events);
    const final = withoutSdkArtifacts(await sdkFinal(frames));
    expect(final).toEqual(nonStreamed(events));
    const { response } = accumulateIrEvents(events);
    const reasoning = response.parts
      .filter((part) => part.type === 'reasoning')
      .map((part) => part.text)
      .join('');
    expect(streamedReasoning(frames)).toBe(reasoning);
  });
});

const captureDir = chatCaptureDir();
const captureFiles =
  captureDir === undefined ? ['(captures/chat absent)'] : fs.readdirSync(captureDir).filter((file) => file.endsWith('.chunks.txt'));
(captureDir === undefined ? describe.skip : describe)('chat captures decoded, re-encoded and read by the official SDK', () => {
  it.each(captureFiles)('%s', async (file: string) => {
    const decoder = chatCodec.upstream.createStreamDecoder(testContext());
    const events = [...decoder.push(captureToSse(fs.readFileSync(path.join(captureDir ?? '', file), 'utf8'))), ...decoder.end()];
    const final = withoutSdkArtifacts(await sdkFinal(encodeStream(events)));
    expect(final).toEqual(nonStreamed(events));
  });
});

describe('chat stream encoder frames', () => {
  const toolEvents = SEQUENCES['Messages thinking, text, then two tool calls (tool indexes are per tool, not per block)'];

  it('opens with the role, counts tool indexes per tool, holds the finish to the end, ends with [DONE]', () => {
    const data = dataOf(encodeStream(toolEvents));
    expect(data[0]).toMatchObject({
      object: 'chat.completion.chunk',
      model: MODEL,
      created: NOW,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    });
    const toolIndexes = data.flatMap((chunk) =>
      ((chunk as { choices?: Array<{ delta: { tool_calls?: Array<{ index: number }> } }> }).choices?.[0]?.delta.tool_calls ?? []).map(
        (call) => call.index,
      ),
    );
    expect(toolIndexes).toEqual([0, 0, 0, 1, 1]);
    const finishAt = data.findIndex(
      (chunk) => (chunk as { choices?: Array<{ finish_reason: string | null }> }).choices?.[0]?.finish_reason,
    );
    expect(finishAt).toBe(data.length - 3);
    expect(data[finishAt]).toMatchObject({ choices: [{ delta: {}, finish_reason: 'tool_calls' }] });
    expect(data[data.length - 2]).toEqual({
      id: 'chatcmpl-test1',
      object: 'chat.completion.chunk',
      created: NOW,
      model: MODEL,
      choices: [],
      usage: {
        prompt_tokens: 16,
        completion_tokens: 30,
        total_tokens: 46,
        prompt_tokens_details: { cached_tokens: 4 },
        completion_tokens_details: { reasoning_tokens: 12 },
      },
    });
    expect(data[data.length - 1]).toBe('[DONE]');
    for (const chunk of data.slice(0, -2)) expect((chunk as { choices: Array<{ index: number }> }).choices[0].index).toBe(0);
  });

  it('sends the usage chunk only when the client asked', async () => {
    const frames = encodeStream(SEQUENCES['plain text'], false);
    expect(dataOf(frames).some((chunk) => typeof chunk === 'object' && chunk !== null && 'usage' in chunk)).toBe(false);
    const final = await sdkFinal(frames);
    expect(final.usage).toBeUndefined();
    expect(frames[frames.length - 1]).toBe('data: [DONE]\n\n');
  });

  it('keeps an upstream chatcmpl- id and replaces any other', () => {
    expect((dataOf(encodeStream(SEQUENCES['plain text']))[0] as { id: string }).id).toBe('chatcmpl-abc');
    expect((dataOf(encodeStream(toolEvents))[0] as { id: string }).id).toBe('chatcmpl-test1');
  });

  it('embeds opaque values where a Chat client sends them back', () => {
    const gc = dataOf(encodeStream(SEQUENCES['Generate-Content tool call with a thought signature, reported as STOP']));
    const call = (gc[1] as { choices: Array<{ delta: { tool_calls: Array<{ id: string }> } }> }).choices[0].delta.tool_calls[0];
    expect(unwrapOpaque(call.id)).toEqual({ origin: 'generate-content', value: JSON.stringify(['gc-call-1', geminiSignature.value]) });
    const plain = dataOf(encodeStream(SEQUENCES['plain text']));
    expect(JSON.stringify(plain)).not.toContain('reasoning_signature');
  });
});

describe('chat stream encoder failures', () => {
  const partial: IrStreamEvent[] = [
    { type: 'start', id: 'chatcmpl-x', model: 'up' },
    { type: 'block_start', index: 0, block: { kind: 'text' } },
    { type: 'text_delta', index: 0, text: 'partial' },
  ];

  it('renders fail() as one error frame, no [DONE], and the SDK throws the API error', async () => {
    const frames = encodeStream(partial, true, new GatewayError('overloaded', 'upstream overloaded', { status: 529 }));
    expect(frames[frames.length - 1]).toBe(
      'data: {"error":{"message":"upstream overloaded","type":"api_error","param":null,"code":"api_error"}}\n\n',
    );
    expect(frames.join('')).not.toContain('[DONE]');
    expect(frames.join('')).not.toContain('finish_reason":"stop');
    const client = chatClient(() => sseResponse(frames));
    const stream = client.chat.completions.stream({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    const error: unknown = await stream.finalChatCompletion().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toBe('upstream overloaded');
    expect((error as APIError).type).toBe('api_error');
    expect((error as APIError).code).toBe('api_error');
  });

  it('turns a decoder error event into the error frame and ignores everything after', () => {
    const encoder = chatCodec.inbound.createStreamEncoder({ model: MODEL, includeUsage: true }, testContext());
    partial.forEach((event) => encoder.push(event));
    const frames = encoder.push({ type: 'error', error: new GatewayError('timeout', 'upstream timed out') });
    expect(dataOf(frames)).toEqual([{ error: { message: 'upstream timed out', type: 'api_error', param: null, code: 'api_error' } }]);
    expect(encoder.push({ type: 'text_delta', index: 0, text: 'late' })).toEqual([]);
    expect(encoder.end()).toEqual([]);
    expect(encoder.fail(new GatewayError('internal', 'again'))).toEqual([]);
  });

  it.each([
    ['no finish at all', partial],
    ['an error finish', [...partial, { type: 'finish', finish: { unified: 'error', raw: 'MALFORMED_FUNCTION_CALL' } } as IrStreamEvent]],
  ])('never invents a stop on %s', (_name, events) => {
    const frames = encodeStream(events);
    const last = dataOf(frames)[frames.length - 1] as { error?: { type: string } };
    expect(last.error?.type).toBe('api_error');
    expect(frames.join('')).not.toContain('[DONE]');
    expect(frames.join('')).not.toContain('"finish_reason":"stop"');
  });

  it('stops after end(): nothing more is written', () => {
    const encoder = chatCodec.inbound.createStreamEncoder({ model: MODEL }, testContext());
    SEQUENCES['plain text'].forEach((event) => encoder.push(event));
    expect(encoder.end().length).toBeGreaterThan(0);
    expect(encoder.end()).toEqual([]);
    expect(encoder.fail(new GatewayError('internal', 'late'))).toEqual([]);
  });
});
