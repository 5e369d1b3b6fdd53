/** IR → native Responses requests: every target-side rule, and warnings for what cannot cross. */
import { GatewayError } from '../../../../src/errors/gateway-error';
import type { IrRequest } from '../../../../src/ir/request';
import type { UpstreamTarget } from '../../../../src/protocols/codec';
import { responsesCodec } from '../../../../src/protocols/responses';
import { deterministicContext } from '../../../support/sdk-responses';

const TARGET: UpstreamTarget = { upstreamModel: 'gpt-5-upstream', maxOutputTokens: 16_384, nativeJsonSchema: true };

function request(overrides: Partial<IrRequest>): IrRequest {
  return {
    model: 'gpt-5',
    system: [],
    turns: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    builtinTools: [],
    sampling: {},
    stream: false,
    ...overrides,
  };
}

function encode(overrides: Partial<IrRequest>): ReturnType<typeof responsesCodec.upstream.encodeRequest> {
  return responsesCodec.upstream.encodeRequest(request(overrides), TARGET, deterministicContext());
}

describe('Responses encodeRequest', () => {
  it('sends a minimal request to /v1/responses', () => {
    const encoded = encode({});
    expect(encoded).toEqual({
      path: '/v1/responses',
      body: {
        model: 'gpt-5-upstream',
        input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
        stream: false,
      },
      headers: {},
      toolNames: {},
      warnings: [],
    });
  });

  it('places system text in instructions and turns as items, tool outputs before the user text', () => {
    const encoded = encode({
      system: [
        { type: 'text', text: 'Rule 1' },
        { type: 'text', text: 'Rule 2', cacheHint: { type: 'ephemeral' } },
      ],
      turns: [
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'Look', cacheHint: { type: 'ephemeral' } },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' }, detail: 'low' },
            { type: 'image', source: { kind: 'url', url: 'https://x/a.png' } },
            { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBE' }, title: 'a.pdf' },
          ],
        },
        {
          role: 'assistant',
          parts: [
            {
              type: 'reasoning',
              text: 'hmm',
              encrypted: { origin: 'responses', value: 'gAAAAenc' },
              itemId: { origin: 'responses', value: 'rs_1' },
            },
            { type: 'reasoning', text: 'foreign', signature: { origin: 'messages', value: 'sig' } },
            { type: 'text', text: 'Let me check.' },
            { type: 'text', text: '' },
            { type: 'tool_call', id: 'toolu_1', name: 'get.weather', argumentsJson: '{"city":"Paris"}' },
            { type: 'tool_call', id: 'fn_2', name: 'lookup', argumentsJson: '{}', signature: { origin: 'generate-content', value: 'ts' } },
            { type: 'native', protocol: 'responses', value: { type: 'web_search_call', id: 'ws_1' } },
            { type: 'native', protocol: 'messages', value: { type: 'server_tool_use' } },
          ],
        },
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'and?' },
            {
              type: 'tool_result',
              callId: 'toolu_1',
              content: [
                { type: 'text', text: 'sun' },
                { type: 'text', text: 'ny' },
              ],
            },
            {
              type: 'tool_result',
              callId: 'fn_2',
              isError: true,
              content: [
                { type: 'text', text: 'see' },
                { type: 'image', source: { kind: 'url', url: 'https://x/b.png' } },
              ],
            },
          ],
        },
      ],
      tools: [
        { name: 'get.weather', description: 'Weather', parameters: { type: 'object' }, strict: true },
        { name: 'lookup', parameters: { type: 'object' } },
      ],
    });
    expect(encoded.body.instructions).toBe('Rule 1\n\nRule 2');
    expect(encoded.body.input).toEqual([
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'Look' },
          { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'low' },
          { type: 'input_image', image_url: 'https://x/a.png', detail: 'auto' },
          { type: 'input_file', file_data: 'data:application/pdf;base64,JVBE', filename: 'a.pdf' },
        ],
      },
      // Replayed with encrypted content and no id, so `store: false` works (pitfall 14).
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'hmm' }], encrypted_content: 'gAAAAenc' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Let me check.', annotations: [] }] },
      { type: 'function_call', call_id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call', call_id: 'fn_2', name: 'lookup', arguments: '{}' },
      { type: 'web_search_call', id: 'ws_1' },
      { type: 'function_call_output', call_id: 'toolu_1', output: 'sunny' },
      {
        type: 'function_call_output',
        call_id: 'fn_2',
        output: [
          { type: 'input_text', text: 'see' },
          { type: 'input_image', image_url: 'https://x/b.png', detail: 'auto' },
        ],
      },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'and?' }] },
    ]);
    expect(encoded.body.tools).toEqual([
      { type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object' }, strict: true },
      { type: 'function', name: 'lookup', parameters: { type: 'object' }, strict: false },
    ]);
    expect(encoded.toolNames).toEqual({ get_weather: 'get.weather', lookup: 'lookup' });
    expect(encoded.warnings.map((w) => w.field)).toEqual([
      'system[1].cache_control',
      'turns[1].parts[1]',
      'turns[1].parts[5].signature',
      'turns[1].parts[7]',
      'turns[2].parts[2].isError',
    ]);
  });

  it.each<[string, Partial<IrRequest>, Record<string, unknown>]>([
    ['tool choice auto', { toolChoice: { type: 'auto' } }, { tool_choice: 'auto' }],
    ['tool choice none', { toolChoice: { type: 'none' } }, { tool_choice: 'none' }],
    ['tool choice required', { toolChoice: { type: 'required' } }, { tool_choice: 'required' }],
    ['a named tool (sanitized)', { toolChoice: { type: 'tool', name: 'my tool' } }, { tool_choice: { type: 'function', name: 'my_tool' } }],
    ['parallel off', { parallelToolCalls: false }, { parallel_tool_calls: false }],
    [
      'sampling',
      { sampling: { maxOutputTokens: 100, temperature: 0.5, topP: 0.8, topLogprobs: 3 } },
      { max_output_tokens: 100, temperature: 0.5, top_p: 0.8, top_logprobs: 3 },
    ],
    ['json_object', { responseFormat: { type: 'json_object' } }, { text: { format: { type: 'json_object' } } }],
    [
      'json_schema',
      { responseFormat: { type: 'json_schema', name: 'r', schema: { type: 'object' }, strict: true, description: 'd' } },
      { text: { format: { type: 'json_schema', name: 'r', schema: { type: 'object' }, strict: true, description: 'd' } } },
    ],
    [
      'effort with encrypted reasoning requested',
      { reasoning: { effort: 'medium' } },
      { reasoning: { effort: 'medium' }, include: ['reasoning.encrypted_content'] },
    ],
    [
      'a budget mapped to an effort, thoughts asked',
      { reasoning: { budgetTokens: 20_000, includeThoughts: true } },
      { reasoning: { effort: 'high', summary: 'auto' }, include: ['reasoning.encrypted_content'] },
    ],
    ['a small budget', { reasoning: { budgetTokens: 1024 } }, { reasoning: { effort: 'low' }, include: ['reasoning.encrypted_content'] }],
    ['effort none', { reasoning: { effort: 'none', disabled: true } }, { reasoning: { effort: 'none' } }],
    [
      'summary',
      { reasoning: { effort: 'low', summary: 'concise' } },
      { reasoning: { effort: 'low', summary: 'concise' }, include: ['reasoning.encrypted_content'] },
    ],
    [
      'metadata, user, store',
      { metadata: { user_id: 'u' }, user: 'end', store: false },
      { metadata: { user_id: 'u' }, user: 'end', store: false },
    ],
    ['stream', { stream: true }, { stream: true }],
    [
      'responses built-in tools',
      { builtinTools: [{ protocol: 'responses', value: { type: 'web_search_preview' } }] },
      { tools: [{ type: 'web_search_preview' }] },
    ],
  ])('maps %s', (_name, overrides, expected) => {
    const encoded = encode(overrides);
    expect(encoded.body).toMatchObject(expected);
    expect(encoded.warnings).toEqual([]);
  });

  it.each<[string, Partial<IrRequest>, string[], Record<string, unknown>]>([
    ['temperature above 2 (clamped, not rescaled)', { sampling: { temperature: 3 } }, ['temperature'], { temperature: 2 }],
    [
      'stop, seed, top_k and penalties',
      { sampling: { stop: ['x'], seed: 1, topK: 5, presencePenalty: 1, frequencyPenalty: 1 } },
      ['top_k', 'stop', 'seed', 'presence_penalty', 'frequency_penalty'],
      {},
    ],
    ['logprobs without a count', { sampling: { logprobs: true } }, ['logprobs'], {}],
    ['effort max', { reasoning: { effort: 'max' } }, ['reasoning.effort'], { reasoning: { effort: 'xhigh' } }],
    ['disabled thinking without an effort', { reasoning: { disabled: true } }, ['reasoning'], {}],
    [
      'another protocol’s built-in tool',
      { builtinTools: [{ protocol: 'messages', value: { type: 'web_search_20250305' } }] },
      ['builtinTools[0]'],
      {},
    ],
    [
      'cache hints on tools, reported once',
      {
        tools: [
          { name: 'a', parameters: {}, cacheHint: { type: 'ephemeral' } },
          { name: 'b', parameters: {}, cacheHint: { type: 'ephemeral' } },
        ],
      },
      ['tools[0].cache_control'],
      {},
    ],
  ])('reports %s', (_name, overrides, fields, expected) => {
    const encoded = encode(overrides);
    expect(encoded.warnings.map((w) => w.field)).toEqual(fields);
    expect(encoded.body).toMatchObject(expected);
    for (const field of ['stop', 'seed', 'top_k', 'presence_penalty', 'frequency_penalty']) expect(encoded.body[field]).toBeUndefined();
  });

  it('drops media Responses cannot reach, with a warning, and keeps file ids and HTTP file URIs', () => {
    const encoded = encode({
      turns: [
        {
          role: 'user',
          parts: [
            { type: 'image', source: { kind: 'file', uri: 'gs://bucket/a.png', mediaType: 'image/png' } },
            { type: 'image', source: { kind: 'file', uri: 'https://files.example/a.png' } },
            { type: 'image', source: { kind: 'file', fileId: 'file-9' } },
            { type: 'document', source: { kind: 'file', uri: 'files/abc' } },
            { type: 'document', source: { kind: 'url', url: 'https://x/doc.pdf' } },
          ],
        },
      ],
    });
    expect(encoded.body.input).toEqual([
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_image', image_url: 'https://files.example/a.png', detail: 'auto' },
          { type: 'input_image', file_id: 'file-9', detail: 'auto' },
          { type: 'input_file', file_url: 'https://x/doc.pdf' },
        ],
      },
    ]);
    expect(encoded.warnings.map((w) => w.field)).toEqual(['turns[0].parts[0]', 'turns[0].parts[3]']);
  });

  it('rejects n > 1, which Responses cannot serve', () => {
    expect(() => encode({ sampling: { n: 2 } })).toThrow(GatewayError);
    try {
      encode({ sampling: { n: 2 } });
    } catch (error) {
      expect((error as GatewayError).kind).toBe('invalid_request');
      expect((error as GatewayError).param).toBe('n');
    }
    expect(encode({ sampling: { n: 1 } }).warnings).toEqual([]);
  });

  it('replays same-protocol extension fields without overriding ours', () => {
    const encoded = encode({
      reasoning: { effort: 'low' },
      responseFormat: { type: 'json_object' },
      extensions: {
        protocol: 'responses',
        fields: {
          include: ['message.output_text.logprobs'],
          text: { verbosity: 'low' },
          truncation: 'auto',
          model: 'other',
        },
      },
    });
    expect(encoded.body).toMatchObject({
      model: 'gpt-5-upstream',
      include: ['message.output_text.logprobs', 'reasoning.encrypted_content'],
      text: { verbosity: 'low', format: { type: 'json_object' } },
      truncation: 'auto',
    });
  });

  it('ignores extension fields of another protocol', () => {
    const encoded = encode({ extensions: { protocol: 'messages', fields: { top_k: 3, container: 'x' } } });
    expect(encoded.body.top_k).toBeUndefined();
    expect(encoded.body.container).toBeUndefined();
  });

  it('never sends the gateway’s own previous_response_id upstream', () => {
    expect(encode({ previousResponseId: 'resp_ours' }).body.previous_response_id).toBeUndefined();
  });

  it('keeps two different unsafe names apart and restores both', () => {
    const encoded = encode({
      tools: [
        { name: 'a.b', parameters: {} },
        { name: 'a:b', parameters: {} },
        { name: 'a_b', parameters: {} },
      ],
    });
    const names = (encoded.body.tools as Array<{ name: string }>).map((tool) => tool.name);
    expect(new Set(names).size).toBe(3);
    expect(names.map((name) => encoded.toolNames[name])).toEqual(['a.b', 'a:b', 'a_b']);
  });
});
