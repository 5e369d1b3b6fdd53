/** IR → Chat provider request: every PROTOCOLS.md section 2 rule that applies to Chat as a target. */
import { GatewayError } from '../../../../src/errors/gateway-error';
import type { IrRequest } from '../../../../src/ir/request';
import type { UpstreamTarget } from '../../../../src/protocols/codec';
import { chatCodec } from '../../../../src/protocols/chat';
import { restoreToolName } from '../../../../src/protocols/shared/tool-names';
import { testContext } from './chat-test-context';

const target: UpstreamTarget = { upstreamModel: 'deepseek-chat', maxOutputTokens: 8192, nativeJsonSchema: true };

function ir(extra: Partial<IrRequest> = {}): IrRequest {
  return {
    model: 'slug',
    system: [],
    turns: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    builtinTools: [],
    sampling: {},
    stream: false,
    ...extra,
  };
}

const encode = (request: IrRequest, on: UpstreamTarget = target) => chatCodec.upstream.encodeRequest(request, on, testContext());
const fields = (warnings: Array<{ field: string }>) => warnings.map((warning) => warning.field);

describe('encodeChatRequest: turns', () => {
  it('places a Messages-style history the way Chat requires', () => {
    const encoded = encode(
      ir({
        system: [
          { type: 'text', text: 'one', cacheHint: { type: 'ephemeral' } },
          { type: 'text', text: 'two' },
        ],
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'Weather and time?' }] },
          {
            role: 'assistant',
            parts: [
              { type: 'reasoning', text: 'Need two tools.', signature: { origin: 'messages', value: 'sig' } },
              { type: 'text', text: 'Checking.' },
              { type: 'tool_call', id: 'toolu_a', name: 'weather', argumentsJson: '{"city":"Paris"}' },
              { type: 'tool_call', id: 'toolu_b', name: 'clock', argumentsJson: '' },
            ],
          },
          {
            role: 'user',
            parts: [
              {
                type: 'tool_result',
                callId: 'toolu_a',
                name: 'weather',
                content: [
                  { type: 'text', text: '18C' },
                  { type: 'text', text: 'sunny' },
                  { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAA' } },
                ],
              },
              { type: 'tool_result', callId: 'toolu_b', content: [{ type: 'text', text: 'no clock' }], isError: true },
              { type: 'text', text: 'Also, umbrella?' },
            ],
          },
        ],
      }),
    );
    expect(encoded.path).toBe('/v1/chat/completions');
    expect(encoded.headers).toEqual({});
    expect(encoded.body).toEqual({
      model: 'deepseek-chat',
      messages: [
        { role: 'system', content: 'one\ntwo' },
        { role: 'user', content: 'Weather and time?' },
        {
          role: 'assistant',
          content: 'Checking.',
          reasoning_content: 'Need two tools.',
          tool_calls: [
            { id: 'toolu_a', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'toolu_b', type: 'function', function: { name: 'clock', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_a', content: '18C\nsunny' },
        { role: 'tool', tool_call_id: 'toolu_b', content: 'no clock' },
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAA' } },
            { type: 'text', text: 'Also, umbrella?' },
          ],
        },
      ],
    });
    expect(fields(encoded.warnings)).toEqual(['system[0].cache_control', 'turns[1].parts[0]', 'turns[2].parts[1].is_error']);
  });

  it('sends content null on a tool-call-only assistant message, and drops reasoning of plain answers', () => {
    const encoded = encode(
      ir({
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'q' }] },
          {
            role: 'assistant',
            parts: [
              { type: 'reasoning', text: 'hmm' },
              { type: 'text', text: 'plain answer' },
            ],
          },
          { role: 'user', parts: [{ type: 'text', text: 'again' }] },
          { role: 'assistant', parts: [{ type: 'tool_call', id: 'c', name: 'f', argumentsJson: '{}' }] },
          { role: 'user', parts: [{ type: 'tool_result', callId: 'c', content: [] }] },
        ],
      }),
    );
    const messages = encoded.body.messages as Array<Record<string, unknown>>;
    expect(messages[1]).toEqual({ role: 'assistant', content: 'plain answer' });
    expect(messages[3]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
    });
    expect(messages[4]).toEqual({ role: 'tool', tool_call_id: 'c', content: '' });
    expect(messages).toHaveLength(5);
    expect(fields(encoded.warnings)).toEqual(['turns[1]']);
  });

  it('never sends an opaque value of another protocol', () => {
    const encoded = encode(
      ir({
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'q' }] },
          {
            role: 'assistant',
            parts: [
              { type: 'reasoning', text: '', redacted: { origin: 'messages', value: 'REDACTED' } },
              { type: 'tool_call', id: 'c', name: 'f', argumentsJson: '{}', signature: { origin: 'generate-content', value: 'THOUGHT' } },
            ],
          },
        ],
      }),
    );
    const text = JSON.stringify(encoded.body);
    expect(text).not.toContain('REDACTED');
    expect(text).not.toContain('THOUGHT');
    expect(fields(encoded.warnings)).toEqual(['turns[1].parts[0]', 'turns[1].parts[1].signature']);
  });

  it('sanitizes tool names with a reverse map, the same way in tools, history and tool_choice', () => {
    const encoded = encode(
      ir({
        tools: [
          { name: 'files.read/v2', parameters: { type: 'object' } },
          { name: 'ok_name', parameters: { type: 'object' } },
        ],
        toolChoice: { type: 'tool', name: 'files.read/v2' },
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'q' }] },
          { role: 'assistant', parts: [{ type: 'tool_call', id: 'c', name: 'files.read/v2', argumentsJson: '{}' }] },
          { role: 'user', parts: [{ type: 'tool_result', callId: 'c', content: [{ type: 'text', text: 'r' }] }] },
        ],
      }),
    );
    expect(encoded.toolNames.files_read_v2).toBe('files.read/v2');
    expect(restoreToolName('ok_name', encoded.toolNames)).toBe('ok_name');
    expect(encoded.body.tools).toEqual([
      { type: 'function', function: { name: 'files_read_v2', parameters: { type: 'object' } } },
      { type: 'function', function: { name: 'ok_name', parameters: { type: 'object' } } },
    ]);
    expect(encoded.body.tool_choice).toEqual({ type: 'function', function: { name: 'files_read_v2' } });
    expect((encoded.body.messages as Array<{ tool_calls?: Array<{ function: { name: string } }> }>)[1].tool_calls?.[0].function.name).toBe(
      'files_read_v2',
    );
  });

  it('rewrites call ids Chat would reject identically on the call and on its result', () => {
    const longId = `toolu_${'x'.repeat(60)}`;
    const encoded = encode(
      ir({
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'q' }] },
          {
            role: 'assistant',
            parts: [
              { type: 'tool_call', id: longId, name: 'f', argumentsJson: '{}' },
              { type: 'tool_call', id: 'has space', name: 'f', argumentsJson: '{}' },
            ],
          },
          {
            role: 'user',
            parts: [
              { type: 'tool_result', callId: longId, content: [] },
              { type: 'tool_result', callId: 'has space', content: [] },
            ],
          },
        ],
      }),
    );
    const messages = encoded.body.messages as Array<{ tool_calls?: Array<{ id: string }>; tool_call_id?: string }>;
    const ids = messages[1].tool_calls?.map((call) => call.id) ?? [];
    expect(ids.map((id) => /^[A-Za-z0-9_-]{1,40}$/.test(id))).toEqual([true, true]);
    expect(new Set(ids).size).toBe(2);
    expect([messages[2].tool_call_id, messages[3].tool_call_id]).toEqual(ids);
  });

  it('turns images into image_url parts, keeps detail, and reports sources it cannot send', () => {
    const encoded = encode(
      ir({
        turns: [
          {
            role: 'user',
            parts: [
              { type: 'text', text: 'look' },
              { type: 'image', source: { kind: 'url', url: 'https://x/y.png' }, detail: 'high' },
              { type: 'image', source: { kind: 'file', fileId: 'file-123' } },
              { type: 'image', source: { kind: 'file', uri: 'https://files.example/abc', mediaType: 'image/png' } },
              { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBE' }, title: 'a.pdf' },
              { type: 'document', source: { kind: 'url', url: 'https://x/a.pdf' } },
            ],
          },
        ],
      }),
    );
    expect((encoded.body.messages as Array<{ content: unknown }>)[0].content).toEqual([
      { type: 'text', text: 'look' },
      { type: 'image_url', image_url: { url: 'https://x/y.png', detail: 'high' } },
      { type: 'image_url', image_url: { url: 'https://files.example/abc' } },
      { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBE', filename: 'a.pdf' } },
    ]);
    expect(fields(encoded.warnings)).toEqual(['turns[0].parts[2]', 'turns[0].parts[5]']);
  });

  it('drops empty turns with a warning rather than sending empty messages', () => {
    const encoded = encode(
      ir({
        turns: [
          { role: 'user', parts: [] },
          { role: 'assistant', parts: [{ type: 'reasoning', text: 'only thoughts' }] },
          { role: 'user', parts: [{ type: 'text', text: 'q' }] },
        ],
      }),
    );
    expect(encoded.body.messages).toEqual([{ role: 'user', content: 'q' }]);
    expect(fields(encoded.warnings)).toEqual(['turns[0]', 'turns[1]']);
  });
});

describe('encodeChatRequest: parameters', () => {
  it('maps sampling, clamps temperature, and reports top_k', () => {
    const encoded = encode(
      ir({
        sampling: {
          maxOutputTokens: 100,
          temperature: 3,
          topP: 0.9,
          topK: 40,
          stop: ['x', 'y'],
          seed: 0,
          n: 2,
          presencePenalty: 0,
          frequencyPenalty: 0.5,
          logprobs: true,
          topLogprobs: 3,
        },
        user: 'u',
      }),
    );
    expect(encoded.body).toMatchObject({
      max_tokens: 100,
      temperature: 2,
      top_p: 0.9,
      stop: ['x', 'y'],
      seed: 0,
      n: 2,
      presence_penalty: 0,
      frequency_penalty: 0.5,
      logprobs: true,
      top_logprobs: 3,
      user: 'u',
    });
    expect(encoded.body).not.toHaveProperty('top_k');
    expect(fields(encoded.warnings)).toEqual(['top_k']);
  });

  it.each([
    ['deepseek-chat', 'max_tokens'],
    ['kimi-k2', 'max_tokens'],
    ['gpt-5', 'max_completion_tokens'],
    ['gpt-4.1', 'max_completion_tokens'],
    ['o3-mini', 'max_completion_tokens'],
  ])('caps output for %s with %s', (upstreamModel, field) => {
    const encoded = encode(ir({ sampling: { maxOutputTokens: 64 } }), { ...target, upstreamModel });
    expect(encoded.body[field]).toBe(64);
    expect(encoded.body).not.toHaveProperty(field === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens');
  });

  it('always asks for usage when streaming, and reports n > 1 on a stream', () => {
    const encoded = encode(ir({ stream: true, sampling: { n: 3 } }));
    expect(encoded.body).toMatchObject({ stream: true, stream_options: { include_usage: true }, n: 3 });
    expect(fields(encoded.warnings)).toEqual(['n']);
    expect(encode(ir()).body).not.toHaveProperty('stream');
  });

  it.each([
    ['an effort', { effort: 'high' as const }, 'high', []],
    ['a small budget', { budgetTokens: 2000 }, 'medium', []],
    ['a large budget', { budgetTokens: 20000 }, 'high', []],
    ['effort max', { effort: 'max' as const }, 'high', ['reasoning.effort']],
    ['disabled', { disabled: true }, undefined, ['reasoning']],
    ['effort none', { effort: 'none' as const }, undefined, ['reasoning']],
  ])('maps reasoning given as %s to reasoning_effort', (_name, reasoning, effort, warned) => {
    const encoded = encode(ir({ reasoning }));
    expect(encoded.body.reasoning_effort).toBe(effort);
    expect(fields(encoded.warnings)).toEqual(warned);
  });

  it('sends tools with tool_choice and parallel_tool_calls, and drops a forced choice without tools', () => {
    const encoded = encode(
      ir({
        tools: [
          {
            name: 'f',
            description: 'd',
            parameters: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
            strict: true,
            cacheHint: { type: 'ephemeral' },
          },
        ],
        builtinTools: [
          { protocol: 'chat', value: { type: 'custom', custom: { name: 'g' } } },
          { protocol: 'messages', value: { type: 'web_search_20250305' } },
        ],
        toolChoice: { type: 'required' },
        parallelToolCalls: false,
      }),
    );
    expect(encoded.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'f',
          description: 'd',
          strict: true,
          parameters: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false },
        },
      },
      { type: 'custom', custom: { name: 'g' } },
    ]);
    expect(encoded.body.tool_choice).toBe('required');
    expect(encoded.body.parallel_tool_calls).toBe(false);
    expect(fields(encoded.warnings)).toEqual(['tools[0].cache_control', 'builtin_tools[1]']);
    const bare = encode(ir({ toolChoice: { type: 'tool', name: 'f' }, parallelToolCalls: true }));
    expect(bare.body).not.toHaveProperty('tool_choice');
    expect(bare.body).not.toHaveProperty('parallel_tool_calls');
    expect(fields(bare.warnings)).toEqual(['tool_choice']);
  });

  it('sends structured output, completing strict schemas and downgrading ones strict mode would reject', () => {
    const strictOk = encode(
      ir({
        responseFormat: {
          type: 'json_schema',
          name: 'my schema',
          strict: true,
          schema: {
            type: 'object',
            properties: { a: { type: 'object', properties: { b: { type: 'string' } }, required: ['b'] } },
            required: ['a'],
          },
        },
      }),
    );
    expect(strictOk.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'my_schema',
        strict: true,
        schema: {
          type: 'object',
          additionalProperties: false,
          required: ['a'],
          properties: { a: { type: 'object', additionalProperties: false, properties: { b: { type: 'string' } }, required: ['b'] } },
        },
      },
    });
    expect(strictOk.warnings).toEqual([]);
    const optional = { type: 'object', properties: { a: { type: 'string' } } };
    const downgraded = encode(ir({ responseFormat: { type: 'json_schema', name: 'n', strict: true, schema: optional } }));
    expect(downgraded.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'n', strict: false, schema: optional } });
    expect(fields(downgraded.warnings)).toEqual(['response_format.json_schema.strict']);
    expect(encode(ir({ responseFormat: { type: 'json_object' } })).body.response_format).toEqual({ type: 'json_object' });
    expect(encode(ir({ responseFormat: { type: 'text' } })).body).not.toHaveProperty('response_format');
  });

  it('refuses json_schema for a model without native structured output', () => {
    expect(() =>
      encode(ir({ responseFormat: { type: 'json_schema', name: 'n', schema: {} } }), { ...target, nativeJsonSchema: false }),
    ).toThrow(expect.objectContaining({ kind: 'unsupported_feature', param: 'response_format' }) as GatewayError);
  });

  it('replays Chat extensions only to Chat, never overriding mapped fields, and reports others', () => {
    const chat = encode(ir({ sampling: { seed: 1 }, extensions: { protocol: 'chat', fields: { service_tier: 'flex', seed: 99 } } }));
    expect(chat.body).toMatchObject({ service_tier: 'flex', seed: 1 });
    expect(chat.warnings).toEqual([]);
    const other = encode(ir({ extensions: { protocol: 'messages', fields: { container: 'x' } }, metadata: { a: 'b' } }));
    expect(other.body).not.toHaveProperty('container');
    expect(other.body).not.toHaveProperty('metadata');
    expect(fields(other.warnings)).toEqual(['metadata', 'container']);
  });
});

describe('encodeChatRequest: a Chat request survives decode then encode', () => {
  it('round-trips a client body to the same provider body', () => {
    const clientBody = {
      model: 'deepseek-chat',
      messages: [
        { role: 'system', content: 'sys' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'image_url', image_url: { url: 'https://x/i.png', detail: 'low' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'r',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'out' },
        { role: 'assistant', content: 'done' },
      ],
      tools: [{ type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object', properties: {} } } }],
      tool_choice: 'auto',
      max_tokens: 50,
      temperature: 0.2,
      stop: ['S'],
      stream: true,
      stream_options: { include_usage: true },
      reasoning_effort: 'medium',
      response_format: { type: 'json_object' },
    };
    const { request } = chatCodec.inbound.decodeRequest(clientBody, testContext());
    const encoded = encode(request);
    expect(encoded.body).toEqual(clientBody);
    expect(encoded.warnings).toEqual([]);
  });
});
