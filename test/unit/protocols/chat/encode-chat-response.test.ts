/** IR answer → chat.completion for Chat clients, and opaque values surviving a real client's round trip. */
import type OpenAI from 'openai';
import { GatewayError } from '../../../../src/errors/gateway-error';
import type { UnifiedFinishReason } from '../../../../src/ir/finish-reason';
import type { IrResponse } from '../../../../src/ir/response';
import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import { chatCodec } from '../../../../src/protocols/chat';
import { chatClient, jsonResponse, sseResponse, type RecordedRequest } from '../../../support/sdk-chat';
import { NOW, testContext } from './chat-test-context';

const MODEL = 'catalog-slug';
const usage = { inputTokens: 5, cacheReadTokens: 3, cacheWriteTokens: 2, outputTokens: 20, reasoningTokens: 8 };
const encode = (response: IrResponse) => chatCodec.inbound.encodeResponse(response, { model: MODEL }, testContext());

function answer(extra: Partial<IrResponse> = {}): IrResponse {
  return {
    id: 'msg_1',
    model: 'upstream-name',
    parts: [{ type: 'text', text: 'hi' }],
    finish: { unified: 'stop', raw: 'end_turn' },
    usage,
    ...extra,
  };
}

const thinking = { type: 'reasoning' as const, text: 'Two lookups needed.', signature: { origin: 'messages' as const, value: 'EqSig==' } };
const redacted = { type: 'reasoning' as const, text: '', redacted: { origin: 'messages' as const, value: 'REDACTED==' } };
const geminiCall = {
  type: 'tool_call' as const,
  id: 'gc-1',
  name: 'lookup',
  argumentsJson: '{"q":1}',
  signature: { origin: 'generate-content' as const, value: 'THOUGHT==' },
};

describe('encodeChatResponse', () => {
  it('renders text, refusal, reasoning and tool calls in the chat.completion shape', () => {
    const body = encode(
      answer({
        parts: [
          { type: 'reasoning', text: 'Let me ' },
          { type: 'reasoning', text: 'see.' },
          { type: 'text', text: 'Part one, ' },
          { type: 'text', text: 'part two.' },
          { type: 'tool_call', id: 'toolu_1', name: 'weather', argumentsJson: '{"city":"Paris"}' },
          { type: 'tool_call', id: 'toolu_2', name: 'clock', argumentsJson: '' },
          { type: 'refusal', text: 'Not that.' },
          { type: 'native', protocol: 'messages', value: { type: 'server_tool_use' } },
        ],
        finish: { unified: 'tool_calls', raw: 'tool_use' },
        created: 123,
      }),
    );
    expect(body).toEqual({
      id: 'chatcmpl-test1',
      object: 'chat.completion',
      created: 123,
      model: MODEL,
      choices: [
        {
          index: 0,
          logprobs: null,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'Part one, part two.',
            refusal: 'Not that.',
            reasoning_content: 'Let me see.',
            tool_calls: [
              { id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
              { id: 'toolu_2', type: 'function', function: { name: 'clock', arguments: '{}' } },
            ],
          },
        },
      ],
      usage: {
        prompt_tokens: 10,
        completion_tokens: 20,
        total_tokens: 30,
        prompt_tokens_details: { cached_tokens: 3 },
        completion_tokens_details: { reasoning_tokens: 8 },
      },
    });
  });

  it('uses content null when there is no text, keeps a chatcmpl- id and stamps created from the context', () => {
    const body = encode(answer({ id: 'chatcmpl-up', parts: [{ type: 'tool_call', id: 'c', name: 'f', argumentsJson: '{}' }] }));
    expect(body).toMatchObject({
      id: 'chatcmpl-up',
      created: NOW,
      choices: [{ message: { content: null, refusal: null }, finish_reason: 'tool_calls' }],
    });
    expect((body.choices as Array<{ message: object }>)[0].message).not.toHaveProperty('reasoning_content');
  });

  it.each<[UnifiedFinishReason, boolean, string]>([
    ['stop', false, 'stop'],
    ['stop_sequence', false, 'stop'],
    ['pause', false, 'stop'],
    ['other', false, 'stop'],
    ['length', false, 'length'],
    ['context_exceeded', false, 'length'],
    ['content_filter', false, 'content_filter'],
    ['tool_calls', true, 'tool_calls'],
    ['stop', true, 'tool_calls'],
    ['length', true, 'length'],
  ])('finish %s (tool calls: %s) → %s', (unified, withCall, expected) => {
    const parts = withCall ? [{ type: 'tool_call' as const, id: 'c', name: 'f', argumentsJson: '{}' }] : [];
    const body = encode(answer({ parts, finish: { unified, raw: 'x' } }));
    expect((body.choices as Array<{ finish_reason: string }>)[0].finish_reason).toBe(expected);
  });

  it('never passes an error finish off as a clean answer', () => {
    expect(() => encode(answer({ finish: { unified: 'error', raw: 'MALFORMED_FUNCTION_CALL' } }))).toThrow(
      expect.objectContaining({ kind: 'upstream_error' }) as GatewayError,
    );
  });
});

/** What an agent loop does: send the assistant message back as received, then answer its tool calls. */
async function nextRequestBody(message: OpenAI.Chat.ChatCompletionMessage): Promise<unknown> {
  const requests: RecordedRequest[] = [];
  const client = chatClient(() => jsonResponse(200, encode(answer())), requests);
  await client.chat.completions.create({
    model: MODEL,
    messages: [
      { role: 'user', content: 'go' },
      message as OpenAI.Chat.ChatCompletionAssistantMessageParam,
      ...(message.tool_calls ?? []).map((call) => ({ role: 'tool' as const, tool_call_id: call.id, content: 'result' })),
    ],
  });
  return requests[0].body;
}

describe('opaque values through a Chat client and back', () => {
  const parts = [thinking, redacted, { type: 'text' as const, text: 'Calling.' }, geminiCall];

  function expectRecovered(body: unknown): void {
    const { request } = chatCodec.inbound.decodeRequest(body, testContext());
    expect(request.turns[1]).toEqual({ role: 'assistant', parts: [thinking, redacted, { type: 'text', text: 'Calling.' }, geminiCall] });
    expect(request.turns[2]).toEqual({
      role: 'user',
      parts: [{ type: 'tool_result', callId: 'gc-1', name: 'lookup', content: [{ type: 'text', text: 'result' }] }],
    });
  }

  it('recovers them from a non-streamed answer the client sends back', async () => {
    const client = chatClient(() => jsonResponse(200, encode(answer({ parts, finish: { unified: 'tool_calls', raw: 'STOP' } }))));
    const completion = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'go' }] });
    expectRecovered(await nextRequestBody(completion.choices[0].message));
  });

  it('recovers them from a streamed answer accumulated by the SDK', async () => {
    const events: IrStreamEvent[] = [
      { type: 'start', id: 'msg_1', model: 'up' },
      { type: 'block_start', index: 0, block: { kind: 'reasoning' } },
      { type: 'reasoning_delta', index: 0, text: 'Two lookups ' },
      { type: 'reasoning_delta', index: 0, text: 'needed.' },
      { type: 'reasoning_opaque', index: 0, field: 'signature', value: thinking.signature },
      { type: 'block_end', index: 0 },
      { type: 'block_start', index: 1, block: { kind: 'reasoning' } },
      { type: 'reasoning_opaque', index: 1, field: 'redacted', value: redacted.redacted },
      { type: 'block_end', index: 1 },
      { type: 'block_start', index: 2, block: { kind: 'text' } },
      { type: 'text_delta', index: 2, text: 'Calling.' },
      { type: 'block_end', index: 2 },
      { type: 'block_start', index: 3, block: { kind: 'tool_call', id: 'gc-1', name: 'lookup', signature: geminiCall.signature } },
      { type: 'tool_args_delta', index: 3, json: '{"q":1}' },
      { type: 'block_end', index: 3 },
      { type: 'finish', finish: { unified: 'stop', raw: 'STOP' } },
    ];
    const encoder = chatCodec.inbound.createStreamEncoder({ model: MODEL }, testContext());
    const frames = [...events.flatMap((event) => encoder.push(event)), ...encoder.end()];
    const client = chatClient(() => sseResponse(frames));
    const completion = await client.chat.completions
      .stream({ model: MODEL, messages: [{ role: 'user', content: 'go' }] })
      .finalChatCompletion();
    expectRecovered(await nextRequestBody(completion.choices[0].message));
  });

  it('ignores a reasoning_signature it did not issue, keeping the plain reasoning text', () => {
    const { request, warnings } = chatCodec.inbound.decodeRequest(
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: 'a', reasoning_content: 'plain', reasoning_signature: 'forged' },
        ],
      },
      testContext(),
    );
    expect(request.turns[1].parts[0]).toEqual({ type: 'reasoning', text: 'plain' });
    expect(warnings.map((warning) => warning.field)).toEqual(['messages[1].reasoning_signature']);
  });
});
