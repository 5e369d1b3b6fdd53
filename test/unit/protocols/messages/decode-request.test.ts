/** Messages client bodies → IR, and the 400s that name the offending field. */
import { GatewayError } from '../../../../src/errors/gateway-error';
import type { IrRequest } from '../../../../src/ir/request';
import { messagesCodec } from '../../../../src/protocols/messages';
import { testContext } from './helpers';

const decode = (body: unknown) => messagesCodec.inbound.decodeRequest(body, testContext());

function body(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'claude-sonnet-4-5', max_tokens: 512, messages: [{ role: 'user', content: 'Hi' }], ...extra };
}

describe('Messages decodeRequest', () => {
  it('decodes the minimal request', () => {
    expect(decode(body())).toEqual({
      request: {
        model: 'claude-sonnet-4-5',
        system: [],
        turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
        tools: [],
        builtinTools: [],
        sampling: { maxOutputTokens: 512 },
        stream: false,
      },
      warnings: [],
    });
  });

  const cases: Array<[string, Record<string, unknown>, Partial<IrRequest>]> = [
    ['system string', { system: 'Be brief.' }, { system: [{ type: 'text', text: 'Be brief.' }] }],
    [
      'system blocks with cache_control',
      {
        system: [
          { type: 'text', text: 'A' },
          { type: 'text', text: 'B', cache_control: { type: 'ephemeral', ttl: '1h' } },
        ],
      },
      {
        system: [
          { type: 'text', text: 'A' },
          { type: 'text', text: 'B', cacheHint: { type: 'ephemeral', ttl: '1h' } },
        ],
      },
    ],
    [
      'sampling fields',
      { temperature: 0.3, top_p: 0.9, top_k: 40, stop_sequences: ['END'], stream: true },
      { sampling: { maxOutputTokens: 512, temperature: 0.3, topP: 0.9, topK: 40, stop: ['END'] }, stream: true },
    ],
    ['metadata user id', { metadata: { user_id: 'u-1' } }, { user: 'u-1' }],
    [
      'tool choice any without parallel calls',
      { tool_choice: { type: 'any', disable_parallel_tool_use: true } },
      { toolChoice: { type: 'required' }, parallelToolCalls: false },
    ],
    ['tool choice tool', { tool_choice: { type: 'tool', name: 'f' } }, { toolChoice: { type: 'tool', name: 'f' } }],
    ['tool choice none', { tool_choice: { type: 'none' } }, { toolChoice: { type: 'none' } }],
    [
      'thinking enabled',
      { thinking: { type: 'enabled', budget_tokens: 4096 } },
      { reasoning: { budgetTokens: 4096, effort: 'medium', includeThoughts: true } },
    ],
    ['thinking disabled', { thinking: { type: 'disabled' } }, { reasoning: { disabled: true } }],
    [
      'adaptive thinking with an effort',
      { thinking: { type: 'adaptive' }, output_config: { effort: 'high' } },
      { reasoning: { effort: 'high', includeThoughts: true } },
    ],
    [
      'native structured output',
      { output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: { a: { type: 'string' } } } } } },
      { responseFormat: { type: 'json_schema', name: 'response', schema: { type: 'object', properties: { a: { type: 'string' } } } } },
    ],
    [
      'beta output_format spelling',
      { output_format: { type: 'json_schema', schema: { type: 'object' } } },
      { responseFormat: { type: 'json_schema', name: 'response', schema: { type: 'object' } } },
    ],
    [
      'unknown top-level fields become extensions',
      { service_tier: 'auto', container: 'c1', output_config: { effort: 'low', task_budget: 5 } },
      {
        extensions: { protocol: 'messages', fields: { service_tier: 'auto', container: 'c1', output_config: { task_budget: 5 } } },
        reasoning: { effort: 'low' },
      },
    ],
    [
      'custom tools and built-in tools',
      {
        tools: [
          {
            name: 'get_weather',
            description: 'Weather',
            input_schema: { type: 'object', properties: {} },
            cache_control: { type: 'ephemeral' },
            strict: true,
          },
          { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
          { type: 'custom', name: 'plain', input_schema: { type: 'object' } },
        ],
      },
      {
        tools: [
          {
            name: 'get_weather',
            description: 'Weather',
            parameters: { type: 'object', properties: {} },
            cacheHint: { type: 'ephemeral' },
            strict: true,
          },
          { name: 'plain', parameters: { type: 'object' } },
        ],
        builtinTools: [{ protocol: 'messages', value: { type: 'web_search_20250305', name: 'web_search', max_uses: 3 } }],
      },
    ],
  ];

  it.each(cases)('%s', (_name, extra, expected) => {
    expect(decode(body(extra)).request).toMatchObject(expected);
  });

  it('decodes every content block kind and names tool results after their calls', () => {
    const { request, warnings } = decode(
      body({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Look', cache_control: { type: 'ephemeral' } },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
              { type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' } },
              { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'hello' }, title: 'Doc' },
              { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBER' } },
              { type: 'document', source: { type: 'file', file_id: 'file_1' } },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hmm', signature: 'EqQBsig' },
              { type: 'redacted_thinking', data: 'EmwKredacted' },
              { type: 'text', text: 'Calling.' },
              { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
              { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } },
              { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
            ],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'toolu_1',
                content: [
                  { type: 'text', text: '20C' },
                  { type: 'image', source: { type: 'url', url: 'https://example.com/map.png' } },
                ],
                is_error: false,
              },
              { type: 'tool_result', tool_use_id: 'toolu_unknown', content: 'x', is_error: true },
            ],
          },
        ],
      }),
    );
    expect(warnings).toEqual([]);
    expect(request.turns).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'Look', cacheHint: { type: 'ephemeral' } },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' } },
          { type: 'image', source: { kind: 'url', url: 'https://example.com/a.jpg' } },
          {
            type: 'document',
            source: { kind: 'base64', mediaType: 'text/plain', data: Buffer.from('hello').toString('base64') },
            title: 'Doc',
          },
          { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBER' } },
          { type: 'document', source: { kind: 'file', fileId: 'file_1' } },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'hmm', signature: { origin: 'messages', value: 'EqQBsig' } },
          { type: 'reasoning', text: '', redacted: { origin: 'messages', value: 'EmwKredacted' } },
          { type: 'text', text: 'Calling.' },
          { type: 'tool_call', id: 'toolu_1', name: 'get_weather', argumentsJson: '{"city":"Paris"}' },
          {
            type: 'native',
            protocol: 'messages',
            value: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } },
          },
          { type: 'native', protocol: 'messages', value: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] } },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            type: 'tool_result',
            callId: 'toolu_1',
            name: 'get_weather',
            content: [
              { type: 'text', text: '20C' },
              { type: 'image', source: { kind: 'url', url: 'https://example.com/map.png' } },
            ],
          },
          { type: 'tool_result', callId: 'toolu_unknown', content: [{ type: 'text', text: 'x' }], isError: true },
        ],
      },
    ]);
  });

  it('reports what it cannot carry as warnings', () => {
    const { warnings } = decode(
      body({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'cited', citations: [{ type: 'char_location' }] },
              { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' }, context: 'ctx' },
            ],
          },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {}, cache_control: { type: 'ephemeral' } }] },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'search_result', source: 's', title: 't', content: [] }] },
            ],
          },
        ],
      }),
    );
    expect(warnings.map((warning) => warning.field)).toEqual([
      'messages.0.content.0.citations',
      'messages.0.content.1.context',
      'messages.1.content.0.cache_control',
      'messages.2.content.0.content.0',
    ]);
  });

  const invalid: Array<[string, unknown, string]> = [
    ['a body that is not an object', 'hello', 'body'],
    ['a missing model', { max_tokens: 1, messages: [{ role: 'user', content: 'x' }] }, 'model'],
    ['a missing max_tokens', { model: 'm', messages: [{ role: 'user', content: 'x' }] }, 'max_tokens'],
    ['a fractional max_tokens', body({ max_tokens: 1.5 }), 'max_tokens'],
    ['empty messages', body({ messages: [] }), 'messages'],
    ['a bad role', body({ messages: [{ role: 'robot', content: 'x' }] }), 'messages.0.role'],
    ['content that is a number', body({ messages: [{ role: 'user', content: 5 }] }), 'messages.0.content'],
    ['a text block without text', body({ messages: [{ role: 'user', content: [{ type: 'text' }] }] }), 'messages.0.content.0.text'],
    [
      'an image with a bad source',
      body({ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'ftp' } }] }] }),
      'messages.0.content.0.source.type',
    ],
    [
      'a tool_use without id',
      body({ messages: [{ role: 'assistant', content: [{ type: 'tool_use', name: 'f', input: {} }] }] }),
      'messages.0.content.0.id',
    ],
    ['temperature above 1', body({ temperature: 1.5 }), 'temperature'],
    ['a thinking budget below 1024', body({ thinking: { type: 'enabled', budget_tokens: 100 } }), 'thinking.budget_tokens'],
    ['a tool without input_schema', body({ tools: [{ name: 'f' }] }), 'tools.0.input_schema'],
    ['a tool choice of unknown type', body({ tool_choice: { type: 'sometimes' } }), 'tool_choice.type'],
  ];

  it.each(invalid)('rejects %s with a 400 naming the field', (_name, input, param) => {
    let thrown: unknown;
    try {
      decode(input);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GatewayError);
    const error = thrown as GatewayError;
    expect(error.kind).toBe('invalid_request');
    expect(error.status).toBe(400);
    expect(error.param).toBe(param);
    expect(error.message.startsWith(`${param}: `)).toBe(true);
  });

  it('says "Field required" for a missing field', () => {
    expect(() => decode({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).toThrow('max_tokens: Field required');
  });
});
