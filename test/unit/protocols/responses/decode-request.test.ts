/** Client Responses bodies → IR: every accepted field, and 400s that name the field. */
import { GatewayError } from '../../../../src/errors/gateway-error';
import { wrapOpaque } from '../../../../src/protocols/shared/wrap-opaque';
import type { IrRequest } from '../../../../src/ir/request';
import { responsesCodec } from '../../../../src/protocols/responses';
import { deterministicContext } from '../../../support/sdk-responses';

function decode(body: Record<string, unknown>): { request: IrRequest; warnings: Array<{ field: string }> } {
  return responsesCodec.inbound.decodeRequest({ model: 'gpt-x', ...body }, deterministicContext());
}

describe('Responses decodeRequest', () => {
  it('takes a string input as one user turn and defaults the rest', () => {
    const { request, warnings } = decode({ input: 'Hello' });
    expect(request).toEqual({
      model: 'gpt-x',
      system: [],
      turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hello' }] }],
      tools: [],
      builtinTools: [],
      sampling: {},
      stream: false,
    });
    expect(warnings).toEqual([]);
  });

  it('maps a multi-turn item list, merging consecutive items of one role', () => {
    const { request, warnings } = decode({
      instructions: 'Be nice.',
      input: [
        { role: 'developer', content: 'Use tools.' },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'Look:' },
            { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'high' },
            { type: 'input_image', image_url: 'https://example.com/a.jpg' },
            { type: 'input_image', file_id: 'file-1' },
            { type: 'input_file', file_data: 'data:application/pdf;base64,JVBE', filename: 'a.pdf' },
            { type: 'input_file', file_url: 'https://example.com/b.pdf' },
          ],
        },
        {
          type: 'reasoning',
          id: 'rs_1',
          summary: [
            { type: 'summary_text', text: 'first' },
            { type: 'summary_text', text: 'second' },
          ],
          encrypted_content: 'gAAAAenc',
        },
        {
          role: 'assistant',
          content: [
            { type: 'output_text', text: 'Calling.' },
            { type: 'refusal', refusal: 'no' },
          ],
        },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' },
        { type: 'web_search_call', id: 'ws_1', status: 'completed' },
        { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
        {
          type: 'function_call_output',
          call_id: 'call_2',
          output: [
            { type: 'input_text', text: 'see' },
            { type: 'input_image', image_url: 'https://x/y.png' },
            { type: 'input_file', file_id: 'f' },
          ],
        },
        { role: 'user', content: 'thanks' },
        { role: 'system', content: 'Late rule.' },
      ],
    });
    expect(request.system).toEqual([
      { type: 'text', text: 'Be nice.' },
      { type: 'text', text: 'Use tools.' },
      { type: 'text', text: 'Late rule.' },
    ]);
    expect(request.turns).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'Look:' },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' }, detail: 'high' },
          { type: 'image', source: { kind: 'url', url: 'https://example.com/a.jpg' } },
          { type: 'image', source: { kind: 'file', fileId: 'file-1' } },
          { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBE' }, title: 'a.pdf' },
          { type: 'document', source: { kind: 'url', url: 'https://example.com/b.pdf' } },
        ],
      },
      {
        role: 'assistant',
        parts: [
          {
            type: 'reasoning',
            text: 'first\n\nsecond',
            encrypted: { origin: 'responses', value: 'gAAAAenc' },
            itemId: { origin: 'responses', value: 'rs_1' },
          },
          { type: 'text', text: 'Calling.' },
          { type: 'refusal', text: 'no' },
          { type: 'tool_call', id: 'call_1', name: 'weather', argumentsJson: '{"city":"Paris"}' },
          { type: 'native', protocol: 'responses', value: { type: 'web_search_call', id: 'ws_1', status: 'completed' } },
        ],
      },
      {
        role: 'user',
        parts: [
          { type: 'tool_result', callId: 'call_1', name: 'weather', content: [{ type: 'text', text: 'sunny' }] },
          {
            type: 'tool_result',
            callId: 'call_2',
            content: [
              { type: 'text', text: 'see' },
              { type: 'image', source: { kind: 'url', url: 'https://x/y.png' } },
            ],
          },
          { type: 'text', text: 'thanks' },
        ],
      },
    ]);
    expect(warnings.map((w) => w.field)).toEqual(['input[7].output[2]', 'input[9]']);
  });

  it('recovers opaque values the gateway embedded for other protocols', () => {
    const callId = wrapOpaque({ origin: 'generate-content', value: JSON.stringify({ id: 'fn_1', signature: 'TS' }) });
    const carrier = wrapOpaque({ origin: 'messages', value: JSON.stringify({ redacted: 'REDACTED' }) });
    const { request } = decode({
      input: [
        { type: 'reasoning', id: 'rs_synth', summary: [], encrypted_content: carrier },
        { type: 'function_call', call_id: callId, name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: callId, output: 'ok' },
      ],
    });
    expect(request.turns).toEqual([
      {
        role: 'assistant',
        parts: [
          // Our synthesized item id is not the provider's: it is not kept.
          { type: 'reasoning', text: '', redacted: { origin: 'messages', value: 'REDACTED' } },
          { type: 'tool_call', id: 'fn_1', name: 'f', argumentsJson: '{}', signature: { origin: 'generate-content', value: 'TS' } },
        ],
      },
      { role: 'user', parts: [{ type: 'tool_result', callId: 'fn_1', name: 'f', content: [{ type: 'text', text: 'ok' }] }] },
    ]);
  });

  it('maps tools, tool choice, sampling, reasoning, formats, and keeps unknown fields as extensions', () => {
    const { request } = decode({
      input: 'x',
      tools: [
        { type: 'function', name: 'a', description: 'A', parameters: { type: 'object', properties: {} }, strict: true },
        { type: 'function', name: 'b' },
        { type: 'web_search_preview', search_context_size: 'low' },
      ],
      tool_choice: { type: 'function', name: 'a' },
      parallel_tool_calls: false,
      temperature: 1.5,
      top_p: 0.9,
      max_output_tokens: 512,
      top_logprobs: 2,
      reasoning: { effort: 'high', summary: 'detailed' },
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true }, verbosity: 'low' },
      stream: true,
      metadata: { user_id: 'u' },
      user: 'end-user',
      store: false,
      include: ['reasoning.encrypted_content'],
      previous_response_id: 'resp_prev',
      truncation: 'auto',
      service_tier: 'flex',
    });
    expect(request).toMatchObject({
      tools: [
        { name: 'a', description: 'A', parameters: { type: 'object', properties: {} }, strict: true },
        { name: 'b', parameters: { type: 'object', properties: {} } },
      ],
      builtinTools: [{ protocol: 'responses', value: { type: 'web_search_preview', search_context_size: 'low' } }],
      toolChoice: { type: 'tool', name: 'a' },
      parallelToolCalls: false,
      sampling: { temperature: 1.5, topP: 0.9, maxOutputTokens: 512, topLogprobs: 2 },
      reasoning: { effort: 'high', summary: 'detailed', includeThoughts: true },
      responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true },
      stream: true,
      metadata: { user_id: 'u' },
      user: 'end-user',
      store: false,
      previousResponseId: 'resp_prev',
      extensions: {
        protocol: 'responses',
        fields: {
          include: ['reasoning.encrypted_content'],
          truncation: 'auto',
          service_tier: 'flex',
          text: { verbosity: 'low' },
        },
      },
    });
  });

  it.each<[string, unknown, unknown]>([
    ['auto', 'auto', { type: 'auto' }],
    ['none', 'none', { type: 'none' }],
    ['required', 'required', { type: 'required' }],
    ['Chat-style nesting', { type: 'function', function: { name: 'f' } }, { type: 'tool', name: 'f' }],
  ])('maps tool_choice %s', (_name, choice, expected) => {
    expect(decode({ input: 'x', tool_choice: choice }).request.toolChoice).toEqual(expected);
  });

  it('keeps a hosted-tool choice for Responses upstreams only, with a warning', () => {
    const { request, warnings } = decode({ input: 'x', tool_choice: { type: 'web_search_preview' } });
    expect(request.toolChoice).toBeUndefined();
    expect(request.extensions?.fields.tool_choice).toEqual({ type: 'web_search_preview' });
    expect(warnings.map((w) => w.field)).toEqual(['tool_choice']);
  });

  it.each<[string, unknown, unknown]>([
    ['json_object', { type: 'json_object' }, { type: 'json_object' }],
    [
      'nested json_schema',
      { type: 'json_schema', json_schema: { name: 'n', schema: { type: 'object' }, strict: false } },
      { type: 'json_schema', name: 'n', schema: { type: 'object' }, strict: false },
    ],
    [
      'flat json_schema without a name',
      { type: 'json_schema', schema: { type: 'object' } },
      { type: 'json_schema', name: 'response', schema: { type: 'object' } },
    ],
  ])('accepts the service response_format %s', (_name, format, expected) => {
    expect(decode({ input: 'x', response_format: format }).request.responseFormat).toEqual(expected);
  });

  it('prefers text.format over response_format', () => {
    const { request } = decode({ input: 'x', text: { format: { type: 'text' } }, response_format: { type: 'json_object' } });
    expect(request.responseFormat).toEqual({ type: 'text' });
  });

  it('marks effort none as disabled reasoning', () => {
    expect(decode({ input: 'x', reasoning: { effort: 'none' } }).request.reasoning).toEqual({ effort: 'none', disabled: true });
    expect(decode({ input: 'x', reasoning: {} }).request.reasoning).toBeUndefined();
  });

  it.each<[string, unknown, string]>([
    ['a body that is not an object', 'nope', ''],
    ['a missing model', { input: 'x', model: undefined }, 'model'],
    ['a missing input', { input: undefined }, 'input'],
    ['a temperature above 2', { input: 'x', temperature: 2.5 }, 'temperature'],
    ['a non-integer max_output_tokens', { input: 'x', max_output_tokens: 1.5 }, 'max_output_tokens'],
    ['an item that is not an object', { input: ['x'] }, 'input[0]'],
    ['a message with an unknown role', { input: [{ role: 'tool', content: 'x' }] }, 'input[0].role'],
    ['a bad content block', { input: [{ role: 'user', content: [{ type: 'input_text' }] }] }, 'input[0].content[0].text'],
    ['an image without a source', { input: [{ role: 'user', content: [{ type: 'input_image' }] }] }, 'input[0].content[0]'],
    ['a function call without call_id', { input: [{ type: 'function_call', name: 'f', arguments: '{}' }] }, 'input[0].call_id'],
    ['a function output without output', { input: [{ type: 'function_call_output', call_id: 'c' }] }, 'input[0].output'],
    ['a function tool without a name', { input: 'x', tools: [{ type: 'function' }] }, 'tools[0].name'],
    ['a tool without a type', { input: 'x', tools: [{ name: 'f' }] }, 'tools[0].type'],
    ['an unknown reasoning effort', { input: 'x', reasoning: { effort: 'extreme' } }, 'reasoning.effort'],
    ['a function tool choice without a name', { input: 'x', tool_choice: { type: 'function' } }, 'tool_choice'],
    ['non-string metadata values', { input: 'x', metadata: { a: 1 } }, 'metadata.a'],
  ])('rejects %s with invalid_request naming the field', (_name, body, param) => {
    const run = (): unknown =>
      responsesCodec.inbound.decodeRequest(
        typeof body === 'object' && body !== null ? { model: 'gpt-x', ...body } : body,
        deterministicContext(),
      );
    expect(run).toThrow(GatewayError);
    try {
      run();
    } catch (error) {
      const gatewayError = error as GatewayError;
      expect(gatewayError.kind).toBe('invalid_request');
      expect(gatewayError.status).toBe(400);
      expect(gatewayError.param ?? '').toBe(param);
      if (param !== '') expect(gatewayError.message).toContain(`'${param}'`);
    }
  });
});
