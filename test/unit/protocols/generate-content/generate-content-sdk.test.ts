/**
 * The official @google/genai SDK as the client: what our inbound encoders write must parse in it
 * exactly as the real API's answers do, and what it sends must decode.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as GenAI from '@google/genai';
import { GatewayError, type ErrorKind } from '../../../../src/errors/gateway-error';
import type { IrResponse } from '../../../../src/ir/response';
import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import { generateContentCodec } from '../../../../src/protocols/generate-content';
import { capturesDir, foldStreamEvents, genai, sdkClient, testContext } from '../../../support/sdk-generate-content';

const { inbound } = generateContentCodec;
const MODEL = 'gemini-test';

/** What a client makes of an answer, whether it came whole or as chunks. */
function accumulate(responses: GenAI.GenerateContentResponse[]) {
  const out = {
    text: '',
    thoughts: '',
    signatures: [] as string[],
    functionCalls: [] as unknown[],
    finishReason: undefined as string | undefined,
    finishReasonCount: 0,
    usage: undefined as unknown,
    responseIds: new Set<string>(),
  };
  for (const response of responses) {
    const candidate = response.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (typeof part.text === 'string') {
        if (part.thought) out.thoughts += part.text;
        else out.text += part.text;
      }
      if (part.functionCall) out.functionCalls.push(part.functionCall);
      if (part.thoughtSignature) out.signatures.push(part.thoughtSignature);
    }
    if (candidate?.finishReason) {
      out.finishReason = candidate.finishReason;
      out.finishReasonCount++;
    }
    if (response.usageMetadata) out.usage = response.usageMetadata;
    if (response.responseId) out.responseIds.add(response.responseId);
  }
  return out;
}

function encodeStream(events: IrStreamEvent[], sse: boolean, failWith?: GatewayError): string[] {
  const encoder = inbound.createStreamEncoder({ model: MODEL, sse }, testContext());
  const frames = events.flatMap((event) => encoder.push(event));
  return [...frames, ...(failWith ? encoder.fail(failWith) : encoder.end())];
}

const sseResponse = (frames: string[]) => ({ body: frames.join(''), headers: { 'content-type': 'text/event-stream' } });

async function viaSdk(response: IrResponse, events: IrStreamEvent[]) {
  const whole = sdkClient(() => ({ body: JSON.stringify(inbound.encodeResponse(response, { model: MODEL }, testContext())) }));
  const unary = await whole.client.models.generateContent({ model: MODEL, contents: 'hi' });
  const streamed = sdkClient(() => sseResponse(encodeStream(events, true)));
  const chunks: GenAI.GenerateContentResponse[] = [];
  for await (const chunk of await streamed.client.models.generateContentStream({ model: MODEL, contents: 'hi' })) chunks.push(chunk);
  expect(whole.sent[0].url).toContain(`/v1beta/models/${MODEL}:generateContent`);
  expect(streamed.sent[0].url).toContain(`/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`);
  return { unary: accumulate([unary]), streamed: accumulate(chunks), chunks };
}

const HAND_MADE: Array<[string, IrStreamEvent[]]> = [
  [
    'text from another protocol',
    [
      { type: 'start', id: 'msg_1', model: 'claude' },
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'Hello ' },
      { type: 'text_delta', index: 0, text: 'world' },
      { type: 'block_end', index: 0 },
      { type: 'finish', finish: { unified: 'stop', raw: 'end_turn' } },
      { type: 'usage', usage: { inputTokens: 5, cacheReadTokens: 3, cacheWriteTokens: 1, outputTokens: 7, reasoningTokens: 0 } },
    ],
  ],
  [
    'thinking with a foreign signature, text and parallel tool calls',
    [
      { type: 'start', id: 'msg_2', model: 'claude' },
      { type: 'block_start', index: 0, block: { kind: 'reasoning' } },
      { type: 'reasoning_delta', index: 0, text: 'Let me think.' },
      { type: 'reasoning_opaque', index: 0, field: 'signature', value: { origin: 'messages', value: 'EqQBCkYIBxgCKkA' } },
      { type: 'block_end', index: 0 },
      { type: 'block_start', index: 1, block: { kind: 'text' } },
      { type: 'text_delta', index: 1, text: 'Checking both.' },
      { type: 'block_end', index: 1 },
      { type: 'block_start', index: 2, block: { kind: 'tool_call', id: 'toolu_a', name: 'weather' } },
      { type: 'tool_args_delta', index: 2, json: '' },
      { type: 'tool_args_delta', index: 2, json: '{"city":"Oslo"}' },
      { type: 'block_end', index: 2 },
      { type: 'block_start', index: 3, block: { kind: 'tool_call', id: 'toolu_b', name: 'weather' } },
      { type: 'tool_args_delta', index: 3, json: '{"city":"Rome"}' },
      { type: 'block_end', index: 3 },
      { type: 'usage', usage: { inputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 40, reasoningTokens: 10 } },
      { type: 'finish', finish: { unified: 'tool_calls', raw: 'tool_use' } },
    ],
  ],
  [
    'an answer cut by the length limit',
    [
      { type: 'start', id: 'chatcmpl-3', model: 'gpt' },
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'Once upon a' },
      { type: 'block_end', index: 0 },
      { type: 'finish', finish: { unified: 'length', raw: 'length' } },
      { type: 'usage', usage: { inputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 3, reasoningTokens: 0 } },
    ],
  ],
];

const capturesFolder = capturesDir('generate-content');
const CAPTURED: Array<[string, IrStreamEvent[]]> = capturesFolder
  ? fs
      .readdirSync(capturesFolder)
      .filter((f) => f.endsWith('.chunks.txt'))
      .map((file) => {
        const lines = fs
          .readFileSync(path.join(capturesFolder, file), 'utf8')
          .split('\n')
          .filter((l) => l.trim() !== '');
        const decoder = generateContentCodec.upstream.createStreamDecoder(testContext());
        return [file, [...decoder.push(lines.map((l) => `data: ${l}\n\n`).join('')), ...decoder.end()]] as [string, IrStreamEvent[]];
      })
  : [];
if (!capturesFolder) console.warn('captured streams skipped in the SDK test: ../shared/captures/generate-content is absent');

describe('the official SDK reads our Generate-Content answers', () => {
  it.each([...HAND_MADE, ...CAPTURED])('%s: streamed and whole answers parse and agree', async (_name, events) => {
    const response = foldStreamEvents(events);
    const { unary, streamed, chunks } = await viaSdk(response, events);
    expect(streamed.text).toBe(unary.text);
    expect(streamed.thoughts).toBe(unary.thoughts);
    expect(streamed.functionCalls).toEqual(unary.functionCalls);
    expect(streamed.signatures).toEqual(unary.signatures);
    expect(streamed.finishReason).toBe(unary.finishReason);
    expect(streamed.usage).toEqual(unary.usage);
    // Only the last chunk finishes (pitfall 12); one response id throughout.
    expect(streamed.finishReasonCount).toBe(1);
    expect(chunks[chunks.length - 1].candidates?.[0]?.finishReason).toBe(unary.finishReason);
    expect(streamed.responseIds).toEqual(new Set([response.id]));
    // And it says what the IR says.
    expect(unary.text).toBe(response.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''));
    expect(unary.functionCalls).toEqual(
      response.parts.flatMap((p) =>
        p.type === 'tool_call'
          ? [{ id: p.id, name: p.name, args: JSON.parse(p.argumentsJson === '' ? '{}' : p.argumentsJson) as unknown }]
          : [],
      ),
    );
  });

  it.each([...HAND_MADE, ...CAPTURED])('%s: the streamed JSON array holds the same chunks as the SSE stream', (_name, events) => {
    const array = JSON.parse(encodeStream(events, false).join('')) as unknown[];
    const sse = encodeStream(events, true).map((frame) => JSON.parse(frame.slice('data: '.length)) as unknown);
    expect(array).toEqual(sse);
  });

  it.each([...HAND_MADE, ...CAPTURED])('%s: a chat session records the streamed turn (valid chunks, finished)', async (_name, events) => {
    const { client } = sdkClient(() => sseResponse(encodeStream(events, true)));
    const chat = client.chats.create({ model: MODEL });
    for await (const _chunk of await chat.sendMessageStream({ message: 'hi' })) {
      /* drain */
    }
    const history = chat.getHistory(true);
    expect(history[0].role).toBe('user');
    expect(history.length).toBeGreaterThan(1);
    expect(history.slice(1).every((content) => content.role === 'model')).toBe(true);
  });

  it('a mid-stream error frame makes the SDK throw as the real API does, after the chunks before it', async () => {
    const events = HAND_MADE[0][1].slice(0, 3);
    const { client } = sdkClient(() => sseResponse(encodeStream(events, true, new GatewayError('overloaded', 'The model is overloaded.'))));
    const seen: string[] = [];
    let caught: unknown;
    try {
      for await (const chunk of await client.models.generateContentStream({ model: MODEL, contents: 'hi' })) seen.push(chunk.text ?? '');
    } catch (error) {
      caught = error;
    }
    expect(seen).toEqual(['Hello ']);
    expect(caught).toBeInstanceOf(genai.ApiError);
    expect((caught as GenAI.ApiError).status).toBe(503);
    expect((caught as GenAI.ApiError).message).toContain('The model is overloaded.');
  });

  it.each([
    ['invalid_request', 400],
    ['authentication', 401],
    ['insufficient_balance', 402],
    ['unsupported_model', 404],
    ['rate_limit', 429],
    ['upstream_error', 502],
    ['overloaded', 503],
  ] as Array<[ErrorKind, number]>)('an error answer (%s) reaches the SDK as ApiError %i with our message', async (kind, status) => {
    const rendered = inbound.encodeError(new GatewayError(kind, `rendered ${kind}`, kind === 'rate_limit' ? { retryAfterSeconds: 2 } : {}));
    const { client } = sdkClient(() => ({
      status: rendered.status,
      body: JSON.stringify(rendered.body),
      headers: { 'content-type': 'application/json', ...rendered.headers },
    }));
    for (const call of [
      () => client.models.generateContent({ model: MODEL, contents: 'hi' }),
      async () => {
        for await (const _chunk of await client.models.generateContentStream({ model: MODEL, contents: 'hi' })) {
          /* drain */
        }
      },
    ]) {
      let caught: unknown;
      try {
        await call();
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(genai.ApiError);
      expect((caught as GenAI.ApiError).status).toBe(status);
      expect((caught as GenAI.ApiError).message).toContain(`rendered ${kind}`);
    }
  });
});

describe('what the official SDK sends decodes', () => {
  it('a request with every modelled config field', async () => {
    const { client, sent } = sdkClient(() => ({
      body: JSON.stringify(inbound.encodeResponse(foldStreamEvents(HAND_MADE[0][1]), { model: MODEL }, testContext())),
    }));
    await client.models.generateContent({
      model: MODEL,
      contents: [{ role: 'user', parts: [{ text: 'Weather?' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] }],
      config: {
        systemInstruction: 'You are terse.',
        temperature: 0.3,
        topP: 0.8,
        topK: 20,
        maxOutputTokens: 256,
        stopSequences: ['STOP!'],
        seed: 42,
        candidateCount: 1,
        presencePenalty: 0.5,
        frequencyPenalty: 0.25,
        responseMimeType: 'application/json',
        responseSchema: {
          type: genai.Type.OBJECT,
          properties: { answer: { type: genai.Type.STRING, nullable: true } },
          required: ['answer'],
        },
        thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
        safetySettings: [{ category: genai.HarmCategory.HARM_CATEGORY_HARASSMENT, threshold: genai.HarmBlockThreshold.BLOCK_NONE }],
        tools: [
          {
            functionDeclarations: [
              {
                name: 'weather',
                description: 'Weather by city',
                parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
              },
            ],
          },
          { googleSearch: {} },
        ],
        toolConfig: { functionCallingConfig: { mode: genai.FunctionCallingConfigMode.ANY, allowedFunctionNames: ['weather'] } },
      },
    });
    const { request, warnings } = inbound.decodeRequest(sent[0].body, testContext());
    expect(warnings).toEqual([]);
    expect(request.system).toEqual([{ type: 'text', text: 'You are terse.' }]);
    expect(request.turns).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'Weather?' },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
        ],
      },
    ]);
    expect(request.sampling).toEqual({
      temperature: 0.3,
      topP: 0.8,
      topK: 20,
      maxOutputTokens: 256,
      stop: ['STOP!'],
      seed: 42,
      n: 1,
      presencePenalty: 0.5,
      frequencyPenalty: 0.25,
    });
    expect(request.responseFormat).toEqual({
      type: 'json_schema',
      name: 'response',
      schema: { type: 'object', properties: { answer: { type: ['string', 'null'] } }, required: ['answer'] },
    });
    expect(request.reasoning).toEqual({ budgetTokens: 1024, includeThoughts: true });
    expect(request.tools).toEqual([
      {
        name: 'weather',
        description: 'Weather by city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ]);
    expect(request.builtinTools).toEqual([{ protocol: 'generate-content', value: { googleSearch: {} } }]);
    expect(request.toolChoice).toEqual({ type: 'tool', name: 'weather' });
    expect(request.extensions?.fields.safetySettings).toEqual([{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }]);
  });

  it('a chat follow-up: our ids, signatures and foreign opaque values come back intact', async () => {
    const firstTurn = foldStreamEvents(HAND_MADE[1][1]);
    let call = 0;
    const { client, sent } = sdkClient(() => {
      call++;
      const answer = call === 1 ? firstTurn : foldStreamEvents(HAND_MADE[0][1]);
      return { body: JSON.stringify(inbound.encodeResponse(answer, { model: MODEL }, testContext())) };
    });
    const chat = client.chats.create({ model: MODEL });
    await chat.sendMessage({ message: 'Weather in Oslo and Rome?' });
    await chat.sendMessage({
      message: [
        { functionResponse: { id: 'toolu_b', name: 'weather', response: { temperature: 20 } } },
        { functionResponse: { id: 'toolu_a', name: 'weather', response: { temperature: 5 } } },
      ],
    });
    const { request } = inbound.decodeRequest(sent[1].body, testContext());
    expect(request.turns).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'Weather in Oslo and Rome?' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'Let me think.', signature: { origin: 'messages', value: 'EqQBCkYIBxgCKkA' } },
          { type: 'text', text: 'Checking both.' },
          { type: 'tool_call', id: 'toolu_a', name: 'weather', argumentsJson: '{"city":"Oslo"}' },
          { type: 'tool_call', id: 'toolu_b', name: 'weather', argumentsJson: '{"city":"Rome"}' },
        ],
      },
      {
        role: 'user',
        parts: [
          { type: 'tool_result', callId: 'toolu_b', name: 'weather', content: [{ type: 'text', text: '{"temperature":20}' }] },
          { type: 'tool_result', callId: 'toolu_a', name: 'weather', content: [{ type: 'text', text: '{"temperature":5}' }] },
        ],
      },
    ]);
  });
});
