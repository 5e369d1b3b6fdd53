import { GatewayError } from '../../../../src/errors/gateway-error';
import type { ContentPart, TextPart, Turn } from '../../../../src/ir/parts';
import type { IrRequest } from '../../../../src/ir/request';
import type { UpstreamTarget } from '../../../../src/protocols/codec';
import {
  encodeGenerateContentRequest,
  SKIP_THOUGHT_SIGNATURE,
} from '../../../../src/protocols/generate-content/encode-generate-content-request';
import { testContext } from '../../../support/sdk-generate-content';

const target: UpstreamTarget = { upstreamModel: 'gemini-2.5-pro', maxOutputTokens: 10_000, nativeJsonSchema: true };

function request(overrides: Partial<IrRequest> = {}): IrRequest {
  return {
    model: 'slug',
    system: [],
    turns: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    builtinTools: [],
    sampling: {},
    stream: false,
    ...overrides,
  };
}

function encode(overrides: Partial<IrRequest> = {}) {
  return encodeGenerateContentRequest(request(overrides), target, testContext());
}

const user = (...parts: ContentPart[]): Turn => ({ role: 'user', parts });
const assistant = (...parts: ContentPart[]): Turn => ({ role: 'assistant', parts });
const text = (value: string): TextPart => ({ type: 'text', text: value });

describe('encodeGenerateContentRequest', () => {
  it.each([
    [false, '/v1beta/models/gemini-2.5-pro:generateContent'],
    [true, '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse'],
  ])('stream=%s uses %s', (stream, path) => {
    const encoded = encode({ stream });
    expect(encoded.path).toBe(path);
    expect(encoded.headers).toEqual({});
    expect(encoded.body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
  });

  it('moves system parts to systemInstruction and reports dropped cache hints', () => {
    const { body, warnings } = encode({
      system: [
        { type: 'text', text: 'a', cacheHint: { type: 'ephemeral' } },
        { type: 'text', text: 'b' },
      ],
    });
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'a' }, { text: 'b' }] });
    expect(warnings.map((w) => w.field)).toEqual(['system.cache_control']);
  });

  it('merges consecutive turns of one role, maps assistant to model and drops empty text', () => {
    const { body } = encode({ turns: [user(text('a')), user(text(''), text('b')), assistant(text('c')), assistant(text('d'))] });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'a' }, { text: 'b' }] },
      { role: 'model', parts: [{ text: 'c' }, { text: 'd' }] },
    ]);
  });

  it('puts every function response of a model turn first in one user content, in call order, named from the call', () => {
    const { body } = encode({
      turns: [
        user(text('go')),
        assistant(
          { type: 'tool_call', id: 'call_a', name: 'alpha', argumentsJson: '{"x":1}' },
          { type: 'tool_call', id: 'call_b', name: 'beta', argumentsJson: '' },
          { type: 'tool_call', id: 'call_c', name: 'gamma', argumentsJson: 'not json' },
        ),
        // Chat sends one tool message per result, without names, in any order.
        user({ type: 'tool_result', callId: 'call_c', content: [text('[1,2]')] }),
        user({ type: 'tool_result', callId: 'call_a', content: [text('{"ok":true}')] }, text('and also this')),
        user({ type: 'tool_result', callId: 'call_b', content: [text('plain words')], isError: true }),
      ],
    });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'go' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { id: 'call_a', name: 'alpha', args: { x: 1 } }, thoughtSignature: SKIP_THOUGHT_SIGNATURE },
          { functionCall: { id: 'call_b', name: 'beta', args: {} } },
          { functionCall: { id: 'call_c', name: 'gamma', args: { _raw_arguments: 'not json' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'call_a', name: 'alpha', response: { ok: true } } },
          { functionResponse: { id: 'call_b', name: 'beta', response: { error: 'plain words' } } },
          { functionResponse: { id: 'call_c', name: 'gamma', response: { result: [1, 2] } } },
          { text: 'and also this' },
        ],
      },
    ]);
  });

  it('wraps a plain-text tool result and sends tool-result images as inline parts after the responses', () => {
    const { body } = encode({
      turns: [
        user(text('go')),
        assistant({ type: 'tool_call', id: 'c1', name: 'shot', argumentsJson: '{}' }),
        user({
          type: 'tool_result',
          callId: 'c1',
          name: 'shot',
          content: [text('taken'), { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'QQ==' } }],
        }),
      ],
    });
    expect((body.contents as unknown[])[2]).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { id: 'c1', name: 'shot', response: { content: 'taken' } } },
        { inlineData: { mimeType: 'image/png', data: 'QQ==' } },
      ],
    });
  });

  it('replays thought signatures of Generate-Content origin on the part they came with, and nothing else', () => {
    const { body, warnings } = encode({
      turns: [
        user(text('q')),
        assistant(
          { type: 'reasoning', text: 'thinking', signature: { origin: 'generate-content', value: 'g-thought' } },
          { type: 'reasoning', text: 'claude thinking', signature: { origin: 'messages', value: 'anthropic' } },
          { type: 'reasoning', text: 'chat reasoning_content' },
          text('answer'),
          { type: 'reasoning', text: '', signature: { origin: 'generate-content', value: 'g-text' } },
          { type: 'tool_call', id: 'c1', name: 'f', argumentsJson: '{}', signature: { origin: 'generate-content', value: 'g-call' } },
          { type: 'tool_call', id: 'c2', name: 'f', argumentsJson: '{}' },
        ),
      ],
    });
    expect((body.contents as unknown[])[1]).toEqual({
      role: 'model',
      parts: [
        { text: 'thinking', thought: true, thoughtSignature: 'g-thought' },
        { text: 'answer', thoughtSignature: 'g-text' },
        { functionCall: { id: 'c1', name: 'f', args: {} }, thoughtSignature: 'g-call' },
        { functionCall: { id: 'c2', name: 'f', args: {} } },
      ],
    });
    expect(warnings.map((w) => w.field)).toEqual(['turns[1].parts[1]', 'turns[1].parts[2]']);
    expect(JSON.stringify(body)).not.toContain('anthropic');
  });

  it('never sends a tool-call signature of another origin, and marks such calls with the documented placeholder', () => {
    const { body, warnings } = encode({
      turns: [
        user(text('q')),
        assistant({ type: 'tool_call', id: 'c1', name: 'f', argumentsJson: '{}', signature: { origin: 'messages', value: 'foreign' } }),
      ],
    });
    expect((body.contents as unknown[])[1]).toEqual({
      role: 'model',
      parts: [{ functionCall: { id: 'c1', name: 'f', args: {} }, thoughtSignature: SKIP_THOUGHT_SIGNATURE }],
    });
    expect(warnings.map((w) => w.field)).toEqual(['turns[1].parts[0].signature']);
  });

  it.each([
    ['base64', { kind: 'base64', mediaType: 'image/jpeg', data: 'AA' }, { inlineData: { mimeType: 'image/jpeg', data: 'AA' } }, 0],
    ['a data URL', { kind: 'url', url: 'data:image/png;base64,QUJD' }, { inlineData: { mimeType: 'image/png', data: 'QUJD' } }, 0],
    [
      'a gs:// URI',
      { kind: 'url', url: 'gs://bucket/cat.png' },
      { fileData: { fileUri: 'gs://bucket/cat.png', mimeType: 'image/png' } },
      0,
    ],
    [
      'a provider file URI',
      { kind: 'file', uri: 'https://generativelanguage.googleapis.com/v1beta/files/f1', mediaType: 'image/webp' },
      { fileData: { fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/f1', mimeType: 'image/webp' } },
      0,
    ],
    ['an http URL the relay could not inline', { kind: 'url', url: 'https://example.com/cat.png' }, undefined, 1],
    ['a foreign file id', { kind: 'file', fileId: 'file-abc' }, undefined, 1],
  ] as const)('sends an image from %s', (_name, source, part, warningCount) => {
    const { body, warnings } = encode({ turns: [user(text('see'), { type: 'image', source })] });
    expect(body.contents).toEqual([{ role: 'user', parts: part ? [{ text: 'see' }, part] : [{ text: 'see' }] }]);
    expect(warnings).toHaveLength(warningCount);
  });

  it('drops a turn left with nothing to send, with a warning', () => {
    const { body, warnings } = encode({
      turns: [user({ type: 'image', source: { kind: 'url', url: 'http://x/y.png' } }), user(text('hello'))],
    });
    expect(body.contents).toEqual([{ role: 'user', parts: [{ text: 'hello' }] }]);
    expect(warnings.map((w) => w.field)).toEqual(['turns[0].parts[0]', 'turns[0]']);
  });

  it('sanitizes tool names with a reverse map, used in declarations, history and tool choice alike', () => {
    const { body, toolNames } = encode({
      tools: [
        {
          name: 'mcp/search files',
          description: 'd',
          parameters: { type: 'object', properties: { q: { type: 'string' } }, additionalProperties: false },
        },
        { name: 'ns.tool:v1', parameters: { type: 'object', properties: {} } },
      ],
      toolChoice: { type: 'tool', name: 'mcp/search files' },
      turns: [
        user(text('q')),
        assistant({ type: 'tool_call', id: 'c', name: 'mcp/search files', argumentsJson: '{}' }),
        user({ type: 'tool_result', callId: 'c', content: [text('r')] }),
      ],
    });
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          { name: 'mcp_search_files', description: 'd', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
          // Valid for Generate-Content as is; an empty object schema is omitted (the upstream rejects it).
          { name: 'ns.tool:v1' },
        ],
      },
    ]);
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['mcp_search_files'] } });
    expect(toolNames).toEqual({ mcp_search_files: 'mcp/search files' });
    const contents = body.contents as Array<{ parts: Array<Record<string, { name?: string }>> }>;
    expect(contents[1].parts[0].functionCall.name).toBe('mcp_search_files');
    expect(contents[2].parts[0].functionResponse.name).toBe('mcp_search_files');
  });

  it.each([
    [{ type: 'auto' }, { mode: 'AUTO' }],
    [{ type: 'none' }, { mode: 'NONE' }],
    [{ type: 'required' }, { mode: 'ANY' }],
  ] as const)('maps tool choice %j', (toolChoice, config) => {
    expect(encode({ toolChoice }).body.toolConfig).toEqual({ functionCallingConfig: config });
  });

  it('reports parallel_tool_calls=false, which has no equivalent', () => {
    expect(encode({ parallelToolCalls: false }).warnings.map((w) => w.field)).toEqual(['parallel_tool_calls']);
  });

  it('maps sampling, clamping temperature and capping stop sequences', () => {
    const { body, warnings } = encode({
      sampling: {
        maxOutputTokens: 50,
        temperature: 2.5,
        topP: 0.5,
        topK: 3,
        stop: ['1', '2', '3', '4', '5', '6'],
        seed: 9,
        presencePenalty: 0.3,
        frequencyPenalty: 0.4,
        n: 1,
        logprobs: true,
        topLogprobs: 2,
      },
    });
    expect(body.generationConfig).toEqual({
      maxOutputTokens: 50,
      temperature: 2,
      topP: 0.5,
      topK: 3,
      stopSequences: ['1', '2', '3', '4', '5'],
      seed: 9,
      presencePenalty: 0.3,
      frequencyPenalty: 0.4,
      candidateCount: 1,
      responseLogprobs: true,
      logprobs: 2,
    });
    expect(warnings.map((w) => w.field)).toEqual(['temperature', 'stop']);
  });

  it('refuses n > 1, which one IR answer cannot hold', () => {
    expect(() => encode({ sampling: { n: 2 } })).toThrow(GatewayError);
    try {
      encode({ sampling: { n: 2 } });
    } catch (error) {
      expect((error as GatewayError).kind).toBe('invalid_request');
      expect((error as GatewayError).param).toBe('n');
    }
  });

  it.each([
    [{ type: 'json_object' }, { responseMimeType: 'application/json' }],
    [
      {
        type: 'json_schema',
        name: 'x',
        schema: { type: 'object', properties: { a: { type: ['string', 'null'] } }, required: ['a'], additionalProperties: false },
      },
      {
        responseMimeType: 'application/json',
        responseSchema: { type: 'object', properties: { a: { type: 'string', nullable: true } }, required: ['a'] },
      },
    ],
    [{ type: 'text' }, undefined],
  ] as const)('maps response format %j', (responseFormat, config) => {
    expect(encode({ responseFormat }).body.generationConfig).toEqual(config);
  });

  it.each([
    [
      { budgetTokens: 2048, includeThoughts: true },
      { thinkingBudget: 2048, includeThoughts: true },
    ],
    [{ effort: 'high' }, { thinkingBudget: 6000 }],
    [{ effort: 'low' }, { thinkingBudget: 1024 }],
    [{ effort: 'none' }, { thinkingBudget: 0 }],
    [{ disabled: true, includeThoughts: true }, { thinkingBudget: 0 }],
    [{ includeThoughts: true }, { includeThoughts: true }],
  ] as const)('maps reasoning %j', (reasoning, thinkingConfig) => {
    expect(encode({ reasoning }).body.generationConfig).toEqual({ thinkingConfig });
  });

  it('replays Generate-Content extensions and built-in tools, and reports those of other protocols', () => {
    const native = encode({
      sampling: { temperature: 1 },
      builtinTools: [
        { protocol: 'generate-content', value: { googleSearch: {} } },
        { protocol: 'messages', value: { type: 'web_search_20250305' } },
      ],
      extensions: {
        protocol: 'generate-content',
        fields: {
          safetySettings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_NONE' }],
          generationConfig: { responseModalities: ['TEXT'] },
          toolConfig: { retrievalConfig: { languageCode: 'en' } },
        },
      },
    });
    expect(native.body.safetySettings).toEqual([{ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_NONE' }]);
    expect(native.body.generationConfig).toEqual({ responseModalities: ['TEXT'], temperature: 1 });
    expect(native.body.toolConfig).toEqual({ retrievalConfig: { languageCode: 'en' } });
    expect(native.body.tools).toEqual([{ googleSearch: {} }]);
    expect(native.warnings.map((w) => w.field)).toEqual(['builtinTools[1]']);

    const foreign = encode({ extensions: { protocol: 'messages', fields: { context_management: {} } }, user: 'u1', metadata: { a: 'b' } });
    expect(foreign.body.context_management).toBeUndefined();
    expect(foreign.warnings.map((w) => w.field)).toEqual(['context_management', 'user', 'metadata']);
  });

  it('keeps tool declarations when the choice is none (history with calls needs them)', () => {
    const { body } = encode({
      toolChoice: { type: 'none' },
      tools: [{ name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } } } }],
    });
    expect(body.tools).toHaveLength(1);
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'NONE' } });
  });
});
