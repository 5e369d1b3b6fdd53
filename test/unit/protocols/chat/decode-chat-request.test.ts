/** Chat client bodies → IR: mapping, validation errors naming the field, warnings, extensions. */
import { GatewayError } from '../../../../src/errors/gateway-error';
import type { IrRequest } from '../../../../src/ir/request';
import { chatCodec } from '../../../../src/protocols/chat';
import { chatClient, jsonResponse, type RecordedRequest } from '../../../support/sdk-chat';
import { testContext } from './chat-test-context';

const decode = (body: unknown) => chatCodec.inbound.decodeRequest(body, testContext());

function body(extra: Record<string, unknown> = {}, messages: unknown[] = [{ role: 'user', content: 'hi' }]): Record<string, unknown> {
  return { model: 'gpt-4.1', messages, ...extra };
}

const PNG = 'iVBORw0KGgo=';

describe('decodeChatRequest: a real client request', () => {
  it('decodes what the official SDK sends, field by field', async () => {
    const requests: RecordedRequest[] = [];
    const client = chatClient(
      () =>
        jsonResponse(200, {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: 'm',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok', refusal: null }, finish_reason: 'stop', logprobs: null }],
        }),
      requests,
    );
    await client.chat.completions.create({
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Use metric units.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather here?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}`, detail: 'low' } },
            { type: 'image_url', image_url: { url: 'https://example.com/a.jpg' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'clock', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '18C' },
        { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: '12:00' }] },
        { role: 'user', content: 'Thanks' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'weather',
            description: 'Weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
            strict: false,
          },
        },
        { type: 'function', function: { name: 'clock' } },
      ],
      tool_choice: { type: 'function', function: { name: 'weather' } },
      parallel_tool_calls: false,
      max_completion_tokens: 256,
      temperature: 0,
      top_p: 0.5,
      stop: 'END',
      n: 1,
      seed: 7,
      presence_penalty: 0.1,
      frequency_penalty: -0.1,
      logprobs: true,
      top_logprobs: 2,
      user: 'u-1',
      reasoning_effort: 'low',
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
      metadata: { team: 'a' },
      service_tier: 'default',
    });
    const { request, warnings } = decode(requests[0].body);
    const expected: IrRequest = {
      model: 'gpt-4.1',
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Use metric units.' },
      ],
      turns: [
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'Weather here?' },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG }, detail: 'low' },
            { type: 'image', source: { kind: 'url', url: 'https://example.com/a.jpg' } },
          ],
        },
        {
          role: 'assistant',
          parts: [
            { type: 'tool_call', id: 'call_1', name: 'weather', argumentsJson: '{"city":"Paris"}' },
            { type: 'tool_call', id: 'call_2', name: 'clock', argumentsJson: '' },
          ],
        },
        {
          role: 'user',
          parts: [
            { type: 'tool_result', callId: 'call_1', name: 'weather', content: [{ type: 'text', text: '18C' }] },
            { type: 'tool_result', callId: 'call_2', name: 'clock', content: [{ type: 'text', text: '12:00' }] },
          ],
        },
        { role: 'user', parts: [{ type: 'text', text: 'Thanks' }] },
      ],
      tools: [
        {
          name: 'weather',
          description: 'Weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
          strict: false,
        },
        { name: 'clock', parameters: { type: 'object', properties: {} } },
      ],
      builtinTools: [],
      toolChoice: { type: 'tool', name: 'weather' },
      parallelToolCalls: false,
      sampling: {
        maxOutputTokens: 256,
        temperature: 0,
        topP: 0.5,
        stop: ['END'],
        n: 1,
        seed: 7,
        presencePenalty: 0.1,
        frequencyPenalty: -0.1,
        logprobs: true,
        topLogprobs: 2,
      },
      responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true },
      reasoning: { effort: 'low', includeThoughts: true },
      stream: false,
      user: 'u-1',
      metadata: { team: 'a' },
      extensions: { protocol: 'chat', fields: { service_tier: 'default' } },
    };
    expect(request).toEqual(expected);
    expect(warnings).toEqual([]);
  });

  it('reads the stream switches the SDK sends', async () => {
    const requests: RecordedRequest[] = [];
    const client = chatClient(() => new Response('data: [DONE]\n\n', { headers: { 'content-type': 'text/event-stream' } }), requests);
    const stream = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const _chunk of stream) {
      /* drain */
    }
    const { request } = decode(requests[0].body);
    expect(request.stream).toBe(true);
    expect(request.includeUsage).toBe(true);
  });
});

describe('decodeChatRequest: mapping rules', () => {
  it.each([
    ['max_tokens alone', { max_tokens: 9 }, { maxOutputTokens: 9 }],
    ['max_completion_tokens wins over max_tokens', { max_tokens: 9, max_completion_tokens: 5 }, { maxOutputTokens: 5 }],
    ['stop array', { stop: ['a', 'b'] }, { stop: ['a', 'b'] }],
    ['n above one', { n: 3 }, { n: 3 }],
    [
      'zero values are kept apart from missing',
      { temperature: 0, seed: 0, presence_penalty: 0 },
      { temperature: 0, seed: 0, presencePenalty: 0 },
    ],
    ['nulls mean missing', { temperature: null, max_tokens: null, stop: null }, {}],
    ['top_k from compat clients', { top_k: 40 }, { topK: 40 }],
  ])('sampling: %s', (_name, extra, sampling) => {
    expect(decode(body(extra)).request.sampling).toEqual(sampling);
  });

  it.each([
    ['auto', 'auto', { type: 'auto' }],
    ['none', 'none', { type: 'none' }],
    ['required', 'required', { type: 'required' }],
    ['a named function', { type: 'function', function: { name: 'f' } }, { type: 'tool', name: 'f' }],
  ])('tool_choice %s', (_name, choice, expected) => {
    expect(decode(body({ tool_choice: choice })).request.toolChoice).toEqual(expected);
  });

  it('maps allowed_tools to its mode and reports the lost subset', () => {
    const { request, warnings } = decode(body({ tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [] } } }));
    expect(request.toolChoice).toEqual({ type: 'required' });
    expect(warnings.map((warning) => warning.field)).toEqual(['tool_choice.allowed_tools.tools']);
  });

  it.each([
    ['text', { type: 'text' }, { type: 'text' }],
    ['json_object', { type: 'json_object' }, { type: 'json_object' }],
    [
      'json_schema with description',
      { type: 'json_schema', json_schema: { name: 'n', description: 'd', schema: { type: 'object' } } },
      { type: 'json_schema', name: 'n', description: 'd', schema: { type: 'object' } },
    ],
  ])('response_format %s', (_name, format, expected) => {
    expect(decode(body({ response_format: format })).request.responseFormat).toEqual(expected);
  });

  it.each([
    ['none disables reasoning', 'none', { effort: 'none', disabled: true }],
    ['high asks for thoughts', 'high', { effort: 'high', includeThoughts: true }],
  ])('reasoning_effort: %s', (_name, effort, expected) => {
    expect(decode(body({ reasoning_effort: effort })).request.reasoning).toEqual(expected);
  });

  it('keeps assistant reasoning_content (compat vendors) first, then text, refusal and calls', () => {
    const { request } = decode(
      body({}, [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: 'Answer',
          reasoning_content: 'thinking',
          refusal: 'no',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: { a: 1 } } }],
        },
      ]),
    );
    expect(request.turns[1]).toEqual({
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: 'thinking' },
        { type: 'text', text: 'Answer' },
        { type: 'refusal', text: 'no' },
        { type: 'tool_call', id: 'c1', name: 'f', argumentsJson: '{"a":1}' },
      ],
    });
  });

  it('takes cache_control hints on text and image parts (agent CLIs behind routers send them)', () => {
    const { request } = decode(
      body({}, [
        { role: 'system', content: [{ type: 'text', text: 'S', cache_control: { type: 'ephemeral' } }] },
        { role: 'user', content: [{ type: 'text', text: 'U', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
      ]),
    );
    expect(request.system).toEqual([{ type: 'text', text: 'S', cacheHint: { type: 'ephemeral' } }]);
    expect(request.turns[0].parts).toEqual([{ type: 'text', text: 'U', cacheHint: { type: 'ephemeral', ttl: '1h' } }]);
  });

  it('reads file parts as documents', () => {
    const { request } = decode(
      body({}, [
        {
          role: 'user',
          content: [
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
            { type: 'file', file: { file_id: 'file-1' } },
          ],
        },
      ]),
    );
    expect(request.turns[0].parts).toEqual([
      { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' }, title: 'a.pdf' },
      { type: 'document', source: { kind: 'file', fileId: 'file-1' } },
    ]);
  });

  it('answers tool messages with the name of the call they answer, and splits on any other message', () => {
    const { request } = decode(
      body({}, [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'fa', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'a', content: 'ra' },
        { role: 'user', content: 'more' },
        { role: 'tool', tool_call_id: 'unknown', content: '' },
      ]),
    );
    expect(request.turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user', 'user', 'user']);
    expect(request.turns[2].parts).toEqual([{ type: 'tool_result', callId: 'a', name: 'fa', content: [{ type: 'text', text: 'ra' }] }]);
    expect(request.turns[4].parts).toEqual([{ type: 'tool_result', callId: 'unknown', content: [] }]);
  });

  it('keeps non-function tools for a Chat upstream', () => {
    const { request } = decode(body({ tools: [{ type: 'custom', custom: { name: 'grammar' } }] }));
    expect(request.tools).toEqual([]);
    expect(request.builtinTools).toEqual([{ protocol: 'chat', value: { type: 'custom', custom: { name: 'grammar' } } }]);
  });

  it('reports what it moves or drops', () => {
    const { request, warnings } = decode(
      body({}, [
        { role: 'user', content: 'hi', name: 'alice' },
        { role: 'system', content: 'late system' },
      ]),
    );
    expect(request.system).toEqual([{ type: 'text', text: 'late system' }]);
    expect(warnings.map((warning) => warning.field)).toEqual(['messages[0].name', 'messages[1]']);
  });
});

describe('decodeChatRequest: validation', () => {
  it.each([
    ['a non-object body', 'nope', undefined],
    ['a missing model', { messages: [{ role: 'user', content: 'x' }] }, 'model'],
    ['empty messages', body({}, []), 'messages'],
    ['an unknown role', body({}, [{ role: 'function', content: 'x' }]), 'messages[0].role'],
    [
      'an image part without url',
      body({}, [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }]),
      'messages[0].content[0].image_url.url',
    ],
    ['an unknown part type', body({}, [{ role: 'user', content: [{ type: 'video', video: {} }] }]), 'messages[0].content[0].type'],
    ['a tool message without tool_call_id', body({}, [{ role: 'tool', content: 'x' }]), 'messages[0].tool_call_id'],
    ['temperature above 2', body({ temperature: 2.5 }), 'temperature'],
    ['n of zero', body({ n: 0 }), 'n'],
    ['a fractional max_tokens', body({ max_tokens: 1.5 }), 'max_tokens'],
    ['an unknown reasoning_effort', body({ reasoning_effort: 'extreme' }), 'reasoning_effort'],
    ['a function tool without a name', body({ tools: [{ type: 'function', function: { description: 'd' } }] }), 'tools[0].function.name'],
    ['json_schema without its spec', body({ response_format: { type: 'json_schema' } }), 'response_format.json_schema'],
    [
      'an ftp image url',
      body({}, [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }] }]),
      'messages[0].content[0].image_url.url',
    ],
    [
      'a data URL that is not base64',
      body({}, [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/svg+xml,<svg/>' } }] }]),
      'messages[0].content[0].image_url.url',
    ],
    [
      'a file part with neither data nor id',
      body({}, [{ role: 'user', content: [{ type: 'file', file: {} }] }]),
      'messages[0].content[0].file',
    ],
  ])('rejects %s naming the field', (_name, input, param) => {
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
    if (param !== undefined) expect(error.message.startsWith(`${param}: `)).toBe(true);
  });

  it('rejects audio input as an unsupported feature', () => {
    expect(() =>
      decode(body({}, [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }] }])),
    ).toThrow(expect.objectContaining({ kind: 'unsupported_feature', param: 'messages[0].content[0]' }));
  });
});
