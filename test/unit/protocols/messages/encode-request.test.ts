/** IR → Messages provider request: every target rule of PROTOCOLS.md section 2 and the lead's decisions. */
import { GatewayError } from '../../../../src/errors/gateway-error';
import type { ContentPart, Turn } from '../../../../src/ir/parts';
import type { IrRequest } from '../../../../src/ir/request';
import type { UpstreamTarget } from '../../../../src/protocols/codec';
import { messagesCodec } from '../../../../src/protocols/messages';
import { TARGET, irRequest, testContext } from './helpers';

const encode = (request: IrRequest, target: UpstreamTarget = TARGET) =>
  messagesCodec.upstream.encodeRequest(request, target, testContext());
const user = (...parts: ContentPart[]): Turn => ({ role: 'user', parts });
const assistant = (...parts: ContentPart[]): Turn => ({ role: 'assistant', parts });
const text = (value: string): ContentPart => ({ type: 'text', text: value });
const call = (id: string, name: string, argumentsJson = '{}'): ContentPart => ({ type: 'tool_call', id, name, argumentsJson });
const result = (callId: string, value: string): ContentPart => ({ type: 'tool_result', callId, content: [{ type: 'text', text: value }] });
const signedThinking: ContentPart = { type: 'reasoning', text: 'think', signature: { origin: 'messages', value: 'EqQBsig' } };

function fields(warnings: ReadonlyArray<{ field: string }>): string[] {
  return warnings.map((warning) => warning.field);
}

describe('Messages encodeRequest', () => {
  it('builds path, headers and the required fields, defaulting max_tokens to the model maximum', () => {
    expect(encode(irRequest())).toEqual({
      path: '/v1/messages',
      headers: { 'anthropic-version': '2023-06-01' },
      body: {
        model: 'claude-sonnet-4-5-20250929',
        max_tokens: 16_384,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
        stream: false,
      },
      toolNames: {},
      warnings: [],
    });
  });

  describe('turn structure', () => {
    const cases: Array<[string, Turn[], unknown[], string[]]> = [
      [
        'merges consecutive turns of one role and puts tool results first',
        [user(text('q')), assistant(text('a1')), assistant(call('c1', 'f')), user(text('after')), user(result('c1', 'r'))],
        [
          { role: 'user', content: [{ type: 'text', text: 'q' }] },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'a1' },
              { type: 'tool_use', id: 'c1', name: 'f', input: {} },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'c1', content: [{ type: 'text', text: 'r' }] },
              { type: 'text', text: 'after' },
            ],
          },
        ],
        ['tools'],
      ],
      [
        'inserts a user turn before an opening assistant turn',
        [assistant(text('I start')), user(text('ok'))],
        [
          { role: 'user', content: [{ type: 'text', text: '(continue)' }] },
          { role: 'assistant', content: [{ type: 'text', text: 'I start' }] },
          { role: 'user', content: [{ type: 'text', text: 'ok' }] },
        ],
        ['turns[0]'],
      ],
      [
        'drops empty and whitespace-only text and the turns left empty, then merges around them',
        [user(text('a')), assistant(text('  ')), user(text(''), text('b'))],
        [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'a' },
              { type: 'text', text: 'b' },
            ],
          },
        ],
        [],
      ],
      [
        'orders an assistant turn thinking, text, then tool calls',
        [user(text('q')), assistant(call('c1', 'f'), text('t'), signedThinking), user(result('c1', 'r'))],
        [
          { role: 'user', content: [{ type: 'text', text: 'q' }] },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'think', signature: 'EqQBsig' },
              { type: 'text', text: 't' },
              { type: 'tool_use', id: 'c1', name: 'f', input: {} },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: [{ type: 'text', text: 'r' }] }] },
        ],
        ['tools'],
      ],
      [
        'inserts an error result for a call without one, and turns a result without a call into text',
        [user(text('q')), assistant(call('c1', 'f'), call('c2', 'f')), user(result('c1', 'r'), result('zz', 'lost'))],
        [
          { role: 'user', content: [{ type: 'text', text: 'q' }] },
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'c1', name: 'f', input: {} },
              { type: 'tool_use', id: 'c2', name: 'f', input: {} },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'c2', is_error: true, content: 'No result was provided for this tool call.' },
              { type: 'tool_result', tool_use_id: 'c1', content: [{ type: 'text', text: 'r' }] },
              { type: 'text', text: 'Result of tool call zz:' },
              { type: 'text', text: 'lost' },
            ],
          },
        ],
        ['messages[2]', 'messages[2]', 'tools'],
      ],
      [
        'trims trailing whitespace of a final assistant prefill',
        [user(text('q')), assistant(text('Sure:  \n'))],
        [
          { role: 'user', content: [{ type: 'text', text: 'q' }] },
          { role: 'assistant', content: [{ type: 'text', text: 'Sure:' }] },
        ],
        [],
      ],
    ];

    it.each(cases)('%s', (_name, turns, messages, warned) => {
      const encoded = encode(irRequest({ turns }));
      expect(encoded.body.messages).toEqual(messages);
      expect(fields(encoded.warnings)).toEqual(warned);
    });

    it('refuses a conversation with nothing to send', () => {
      expect(() => encode(irRequest({ turns: [user(text(' '))] }))).toThrow(GatewayError);
    });
  });

  describe('names, ids and arguments', () => {
    it('sanitizes tool names and call ids the same way everywhere and returns the reverse map', () => {
      const encoded = encode(
        irRequest({
          tools: [{ name: 'get.weather/now', parameters: { type: 'object' } }],
          toolChoice: { type: 'tool', name: 'get.weather/now' },
          turns: [user(text('q')), assistant(call('call:1|x', 'get.weather/now', '{"a":1}')), user(result('call:1|x', 'ok'))],
        }),
      );
      expect(encoded.toolNames).toEqual({ get_weather_now: 'get.weather/now' });
      expect(encoded.body.tools).toEqual([{ name: 'get_weather_now', input_schema: { type: 'object' } }]);
      expect(encoded.body.tool_choice).toEqual({ type: 'tool', name: 'get_weather_now' });
      const messages = encoded.body.messages as Array<{ content: Array<Record<string, unknown>> }>;
      expect(messages[1].content[0]).toEqual({ type: 'tool_use', id: 'call_1_x', name: 'get_weather_now', input: { a: 1 } });
      expect(messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'call_1_x' });
    });

    it.each([
      ['an empty string', '', {}],
      ['an unparsable string (kept, never dropped)', '{"a":', { _raw_arguments: '{"a":' }],
      ['a non-object value', '[1,2]', { value: [1, 2] }],
    ])('turns %s of arguments into an input object', (_name, argumentsJson, input) => {
      const encoded = encode(irRequest({ turns: [user(text('q')), assistant(call('c', 'f', argumentsJson))] }));
      const messages = encoded.body.messages as Array<{ content: Array<Record<string, unknown>> }>;
      expect(messages[1].content[0].input).toEqual(input);
    });

    it('drops a Generate-Content signature on a call, with a warning', () => {
      const encoded = encode(
        irRequest({
          turns: [
            user(text('q')),
            assistant({
              type: 'tool_call',
              id: 'c',
              name: 'f',
              argumentsJson: '{}',
              signature: { origin: 'generate-content', value: 's' },
            }),
          ],
        }),
      );
      expect(fields(encoded.warnings)).toContain('turns[1].parts[0].signature');
      expect(JSON.stringify(encoded.body)).not.toContain('"s"');
    });

    it('declares tools used in history as stubs with tool choice none when the request has none', () => {
      const encoded = encode(irRequest({ turns: [user(text('q')), assistant(call('c', 'lookup')), user(result('c', 'r'))] }));
      expect(encoded.body.tools).toEqual([{ name: 'lookup', input_schema: { type: 'object' } }]);
      expect(encoded.body.tool_choice).toEqual({ type: 'none' });
    });
  });

  describe('media, reasoning and native blocks', () => {
    it('converts images and documents, and reports those that cannot cross', () => {
      const encoded = encode(
        irRequest({
          turns: [
            user(
              { type: 'image', source: { kind: 'url', url: 'data:image/png;base64,iVBOR' } },
              {
                type: 'image',
                source: { kind: 'url', url: 'https://example.com/a.jpg' },
                detail: 'high',
                cacheHint: { type: 'ephemeral' },
              },
              { type: 'image', source: { kind: 'file', fileId: 'file-abc' } },
              { type: 'image', source: { kind: 'base64', mediaType: 'image/heic', data: 'AAAA' } },
              {
                type: 'document',
                source: { kind: 'base64', mediaType: 'text/plain', data: Buffer.from('doc text').toString('base64') },
                title: 'T',
              },
              { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBER' } },
              { type: 'document', source: { kind: 'base64', mediaType: 'application/zip', data: 'UEsDB' } },
              text('describe'),
            ),
          ],
        }),
      );
      const messages = encoded.body.messages as Array<{ content: unknown[] }>;
      expect(messages[0].content).toEqual([
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
        { type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' }, cache_control: { type: 'ephemeral' } },
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'doc text' }, title: 'T' },
        { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBER' } },
        { type: 'text', text: 'describe' },
      ]);
      expect(fields(encoded.warnings)).toEqual(['turns[0].parts[1].detail', 'turns[0].parts[2]', 'turns[0].parts[3]', 'turns[0].parts[6]']);
    });

    it("replays only this provider's own reasoning and native blocks", () => {
      const encoded = encode(
        irRequest({
          turns: [
            user(text('q')),
            assistant(
              signedThinking,
              { type: 'reasoning', text: '', redacted: { origin: 'messages', value: 'RED' } },
              { type: 'reasoning', text: 'gemini thought', signature: { origin: 'generate-content', value: 'g' } },
              {
                type: 'reasoning',
                text: '',
                encrypted: { origin: 'responses', value: 'enc' },
                itemId: { origin: 'responses', value: 'rs_1' },
              },
              { type: 'native', protocol: 'messages', value: { type: 'server_tool_use', id: 's1', name: 'web_search', input: {} } },
              { type: 'native', protocol: 'responses', value: { type: 'web_search_call', id: 'ws' } },
              { type: 'refusal', text: 'No.' },
            ),
          ],
        }),
      );
      const messages = encoded.body.messages as Array<{ content: unknown[] }>;
      expect(messages[1].content).toEqual([
        { type: 'thinking', thinking: 'think', signature: 'EqQBsig' },
        { type: 'redacted_thinking', data: 'RED' },
        { type: 'server_tool_use', id: 's1', name: 'web_search', input: {} },
        { type: 'text', text: 'No.' },
      ]);
      expect(fields(encoded.warnings)).toEqual(['turns[1].parts[2]', 'turns[1].parts[3]', 'turns[1].parts[5]']);
    });
  });

  describe('system, cache hints, sampling and extensions', () => {
    it('joins system parts into a string, or keeps blocks when they carry cache hints', () => {
      expect(
        encode(
          irRequest({
            system: [
              { type: 'text', text: 'A' },
              { type: 'text', text: 'B' },
            ],
          }),
        ).body.system,
      ).toBe('A\nB');
      expect(
        encode(
          irRequest({
            system: [
              { type: 'text', text: 'A' },
              { type: 'text', text: 'B', cacheHint: { type: 'ephemeral' } },
            ],
          }),
        ).body.system,
      ).toEqual([
        { type: 'text', text: 'A' },
        { type: 'text', text: 'B', cache_control: { type: 'ephemeral' } },
      ]);
    });

    it('clamps temperature to 0-1, keeps top_p/top_k/stop, and reports what has no field here', () => {
      const encoded = encode(
        irRequest({
          sampling: {
            temperature: 1.7,
            topP: 0.5,
            topK: 3,
            stop: ['END', ' '],
            seed: 7,
            presencePenalty: 0.1,
            frequencyPenalty: 0.2,
            logprobs: true,
            maxOutputTokens: 99_999,
          },
          user: 'u1',
          metadata: { team: 'a' },
        }),
      );
      expect(encoded.body).toMatchObject({
        temperature: 1,
        top_p: 0.5,
        top_k: 3,
        stop_sequences: ['END'],
        max_tokens: 16_384,
        metadata: { user_id: 'u1' },
      });
      expect(fields(encoded.warnings)).toEqual([
        'sampling.maxOutputTokens',
        'sampling.temperature',
        'sampling.stop',
        'sampling.seed',
        'sampling.presencePenalty',
        'sampling.frequencyPenalty',
        'sampling.logprobs',
        'metadata',
      ]);
    });

    it('rejects n > 1 naming the field', () => {
      expect(() => encode(irRequest({ sampling: { n: 2 } }))).toThrow(expect.objectContaining({ kind: 'invalid_request', param: 'n' }));
      expect(encode(irRequest({ sampling: { n: 1 } })).warnings).toEqual([]);
    });

    it('maps tool choice and parallel calls', () => {
      const tools = [{ name: 'f', parameters: { type: 'object' } }];
      expect(encode(irRequest({ tools, toolChoice: { type: 'required' }, parallelToolCalls: false })).body.tool_choice).toEqual({
        type: 'any',
        disable_parallel_tool_use: true,
      });
      expect(encode(irRequest({ tools, parallelToolCalls: false })).body.tool_choice).toEqual({
        type: 'auto',
        disable_parallel_tool_use: true,
      });
      expect(encode(irRequest({ tools, toolChoice: { type: 'none' } })).body.tool_choice).toEqual({ type: 'none' });
      const noTools = encode(irRequest({ toolChoice: { type: 'required' } }));
      expect(noTools.body.tool_choice).toBeUndefined();
      expect(fields(noTools.warnings)).toEqual(['toolChoice']);
    });

    it('keeps tool cache hints, passes Messages built-ins and reports others', () => {
      const encoded = encode(
        irRequest({
          tools: [{ name: 'f', description: 'F', parameters: { properties: {} }, cacheHint: { type: 'ephemeral' }, strict: true }],
          builtinTools: [
            { protocol: 'messages', value: { type: 'web_search_20250305', name: 'web_search' } },
            { protocol: 'responses', value: { type: 'web_search_preview' } },
          ],
        }),
      );
      expect(encoded.body.tools).toEqual([
        { name: 'f', description: 'F', input_schema: { type: 'object', properties: {} }, cache_control: { type: 'ephemeral' } },
        { type: 'web_search_20250305', name: 'web_search' },
      ]);
      expect(fields(encoded.warnings)).toEqual(['tools[0].strict', 'builtinTools[1]']);
      const native = encode(irRequest({ tools: [{ name: 'f', parameters: { type: 'object' }, strict: true }] }), {
        ...TARGET,
        nativeJsonSchema: true,
      });
      expect(native.body.tools).toEqual([{ name: 'f', input_schema: { type: 'object' }, strict: true }]);
    });

    it("replays Messages extensions and reports another protocol's", () => {
      expect(encode(irRequest({ extensions: { protocol: 'messages', fields: { service_tier: 'auto' } } })).body.service_tier).toBe('auto');
      const other = encode(irRequest({ extensions: { protocol: 'responses', fields: { truncation: 'auto' } } }));
      expect(other.body.truncation).toBeUndefined();
      expect(fields(other.warnings)).toEqual(['extensions']);
    });
  });

  describe('thinking', () => {
    it('maps an effort to a budget within max_tokens and drops sampling it forbids', () => {
      const encoded = encode(irRequest({ reasoning: { effort: 'high' }, sampling: { temperature: 0.5, topP: 0.9, topK: 5 } }));
      expect(encoded.body.thinking).toEqual({ type: 'enabled', budget_tokens: 9830 });
      expect(encoded.body.max_tokens).toBe(16_384);
      expect(encoded.body.temperature).toBeUndefined();
      expect(encoded.body.top_p).toBeUndefined();
      expect(encoded.body.top_k).toBeUndefined();
      expect(fields(encoded.warnings)).toEqual(['sampling.temperature', 'sampling.topP', 'sampling.topK']);
    });

    it('raises max_tokens to visible output + budget, clamped to the model maximum', () => {
      expect(encode(irRequest({ reasoning: { budgetTokens: 2000 }, sampling: { maxOutputTokens: 1000 } })).body).toMatchObject({
        max_tokens: 3000,
        thinking: { budget_tokens: 2000 },
      });
      const clamped = encode(irRequest({ reasoning: { budgetTokens: 20_000 }, sampling: { maxOutputTokens: 1000 } }));
      expect(clamped.body).toMatchObject({ max_tokens: 16_384, thinking: { budget_tokens: 16_383 } });
      expect(fields(clamped.warnings)).toEqual(['reasoning.budgetTokens']);
    });

    it('raises a budget below the minimum to 1024', () => {
      expect(encode(irRequest({ reasoning: { budgetTokens: 200 } })).body.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    });

    it('disables thinking when the model cannot fit a budget', () => {
      const encoded = encode(irRequest({ reasoning: { effort: 'low' } }), { ...TARGET, maxOutputTokens: 1000 });
      expect(encoded.body.thinking).toBeUndefined();
      expect(fields(encoded.warnings)).toEqual(['reasoning']);
    });

    it.each([
      ['effort none', { effort: 'none' as const }],
      ['disabled', { disabled: true }],
      ['a zero budget', { budgetTokens: 0 }],
      ['only includeThoughts', { includeThoughts: true }],
    ])('sends no thinking for %s', (_name, reasoning) => {
      expect(encode(irRequest({ reasoning })).body.thinking).toBeUndefined();
    });

    it('maps a forced tool to auto', () => {
      const encoded = encode(
        irRequest({
          reasoning: { effort: 'low' },
          tools: [{ name: 'f', parameters: { type: 'object' } }],
          toolChoice: { type: 'tool', name: 'f' },
        }),
      );
      expect(encoded.body.tool_choice).toEqual({ type: 'auto' });
      expect(fields(encoded.warnings)).toEqual(['toolChoice']);
    });

    it('is disabled when the final assistant tool-call turn has no signed Messages thinking block, kept when it has one', () => {
      const tools = [{ name: 'f', parameters: { type: 'object' } }];
      const unsigned = encode(
        irRequest({ tools, reasoning: { effort: 'low' }, turns: [user(text('q')), assistant(call('c', 'f')), user(result('c', 'r'))] }),
      );
      expect(unsigned.body.thinking).toBeUndefined();
      expect(fields(unsigned.warnings)).toEqual(['reasoning']);
      const foreign = encode(
        irRequest({
          tools,
          reasoning: { effort: 'low' },
          turns: [
            user(text('q')),
            assistant({ type: 'reasoning', text: 'x', signature: { origin: 'generate-content', value: 'g' } }, call('c', 'f')),
            user(result('c', 'r')),
          ],
        }),
      );
      expect(foreign.body.thinking).toBeUndefined();
      const signed = encode(
        irRequest({
          tools,
          reasoning: { effort: 'low' },
          turns: [user(text('q')), assistant(signedThinking, call('c', 'f')), user(result('c', 'r'))],
        }),
      );
      expect(signed.body.thinking).toEqual({ type: 'enabled', budget_tokens: 1638 });
      expect(signed.warnings).toEqual([]);
    });
  });

  describe('structured output', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };

    it('uses output_config.format on models with native support', () => {
      const encoded = encode(irRequest({ responseFormat: { type: 'json_schema', name: 'r', schema } }), {
        ...TARGET,
        nativeJsonSchema: true,
      });
      expect(encoded.body.output_config).toEqual({ format: { type: 'json_schema', schema } });
      expect(encoded.jsonToolName).toBeUndefined();
    });

    it('otherwise forces a `json` tool that does not collide, and disables thinking', () => {
      const encoded = encode(
        irRequest({
          responseFormat: { type: 'json_schema', name: 'r', schema },
          tools: [{ name: 'json', parameters: { type: 'object' } }],
          reasoning: { effort: 'high' },
        }),
      );
      expect(encoded.jsonToolName).toBe('json_2');
      expect(encoded.body.tool_choice).toEqual({ type: 'tool', name: 'json_2' });
      expect((encoded.body.tools as unknown[]).at(-1)).toMatchObject({ name: 'json_2', input_schema: schema });
      expect(encoded.body.thinking).toBeUndefined();
      expect(fields(encoded.warnings)).toEqual(['tools', 'reasoning']);
    });

    it('forces an object tool for json_object', () => {
      const encoded = encode(irRequest({ responseFormat: { type: 'json_object' } }), { ...TARGET, nativeJsonSchema: true });
      expect(encoded.jsonToolName).toBe('json');
      expect(encoded.body.tools).toEqual([expect.objectContaining({ name: 'json', input_schema: { type: 'object' } })]);
    });
  });
});
