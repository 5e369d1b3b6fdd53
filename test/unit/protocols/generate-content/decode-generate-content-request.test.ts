import { GatewayError } from '../../../../src/errors/gateway-error';
import { wrapOpaque } from '../../../../src/protocols/shared/wrap-opaque';
import type { IrRequest } from '../../../../src/ir/request';
import { decodeGenerateContentRequest } from '../../../../src/protocols/generate-content/decode-generate-content-request';
import { testContext } from '../../../support/sdk-generate-content';

function decode(body: unknown): { request: IrRequest; warnings: Array<{ field: string }> } {
  return decodeGenerateContentRequest(body, testContext());
}

const user = (text: string) => ({ role: 'user', parts: [{ text }] });

describe('decodeGenerateContentRequest', () => {
  it('leaves model and stream to the relay (they come from the URL)', () => {
    const { request } = decode({ contents: [user('hi')] });
    expect(request.model).toBe('');
    expect(request.stream).toBe(false);
    expect(request.turns).toEqual([{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }]);
  });

  it.each([
    ['no contents', {}, 'contents'],
    ['empty contents', { contents: [] }, 'contents'],
    ['a non-string text', { contents: [{ role: 'user', parts: [{ text: 5 }] }] }, 'contents[0].parts[0].text'],
    ['an unknown role', { contents: [{ role: 'system', parts: [{ text: 'x' }] }] }, 'contents[0].role'],
    ['an empty part', { contents: [{ role: 'user', parts: [{}] }] }, 'contents[0].parts[0]'],
    ['a part with only thought', { contents: [user('a'), { role: 'model', parts: [{ thought: true }] }] }, 'contents[1].parts[0]'],
    ['a temperature above 2', { contents: [user('a')], generationConfig: { temperature: 3 } }, 'generationConfig.temperature'],
    [
      'six stop sequences',
      { contents: [user('a')], generationConfig: { stopSequences: ['1', '2', '3', '4', '5', '6'] } },
      'generationConfig.stopSequences',
    ],
    [
      'a nameless function',
      { contents: [user('a')], tools: [{ functionDeclarations: [{ description: 'x' }] }] },
      'tools[0].functionDeclarations[0].name',
    ],
    [
      'an unknown calling mode',
      { contents: [user('a')], toolConfig: { functionCallingConfig: { mode: 'SOMETIMES' } } },
      'toolConfig.functionCallingConfig.mode',
    ],
    ['a body that is not an object', 'hello', ''],
  ])('rejects %s with invalid_request naming the field', (_name, body, param) => {
    let caught: unknown;
    try {
      decode(body);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatewayError);
    const error = caught as GatewayError;
    expect(error.kind).toBe('invalid_request');
    expect(error.status).toBe(400);
    expect(error.param).toBe(param === '' ? undefined : param);
    expect(error.message).toContain(param === '' ? 'body' : param);
  });

  it('decodes system instruction, roles, media and thoughts', () => {
    const { request } = decode({
      systemInstruction: { parts: [{ text: 'be brief' }, { text: 'be kind' }] },
      contents: [
        {
          parts: [
            { text: 'look' },
            { inlineData: { mimeType: 'image/png', data: 'AAAA' } },
            { fileData: { mimeType: 'application/pdf', fileUri: 'gs://b/doc.pdf' } },
          ],
        },
        {
          role: 'model',
          parts: [
            { text: 'pondering', thought: true, thoughtSignature: 'sig-thought' },
            { text: 'answer', thoughtSignature: 'sig-text' },
          ],
        },
      ],
    });
    expect(request.system).toEqual([
      { type: 'text', text: 'be brief' },
      { type: 'text', text: 'be kind' },
    ]);
    expect(request.turns).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'look' },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } },
          { type: 'document', source: { kind: 'file', uri: 'gs://b/doc.pdf', mediaType: 'application/pdf' } },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'pondering', signature: { origin: 'generate-content', value: 'sig-thought' } },
          { type: 'text', text: 'answer' },
          // A signature on a text part survives as a signature-only reasoning part right after it.
          { type: 'reasoning', text: '', signature: { origin: 'generate-content', value: 'sig-text' } },
        ],
      },
    ]);
  });

  it('keeps unknown part kinds as native parts', () => {
    const { request } = decode({
      contents: [user('run it'), { role: 'model', parts: [{ executableCode: { language: 'PYTHON', code: 'print(1)' } }] }],
    });
    expect(request.turns[1].parts).toEqual([
      { type: 'native', protocol: 'generate-content', value: { executableCode: { language: 'PYTHON', code: 'print(1)' } } },
    ]);
  });

  it('pairs function responses with calls by id, else by name in order, and synthesizes missing ids', () => {
    const { request } = decode({
      contents: [
        user('weather in two cities and the time'),
        {
          role: 'model',
          parts: [
            { functionCall: { name: 'weather', args: { city: 'Paris' } }, thoughtSignature: 'sig-call' },
            { functionCall: { name: 'weather', args: { city: 'Oslo' } } },
            { functionCall: { id: 'clock-1', name: 'time' } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'clock-1', name: 'time', response: { now: '12:00' } } },
            { functionResponse: { name: 'weather', response: { content: 'sunny' } } },
            { functionResponse: { name: 'weather', response: { error: 'no station' } } },
          ],
        },
      ],
    });
    const calls = request.turns[1].parts;
    expect(calls).toEqual([
      {
        type: 'tool_call',
        id: 'call_id1',
        name: 'weather',
        argumentsJson: '{"city":"Paris"}',
        signature: { origin: 'generate-content', value: 'sig-call' },
      },
      { type: 'tool_call', id: 'call_id2', name: 'weather', argumentsJson: '{"city":"Oslo"}' },
      { type: 'tool_call', id: 'clock-1', name: 'time', argumentsJson: '{}' },
    ]);
    expect(request.turns[2].parts).toEqual([
      { type: 'tool_result', callId: 'clock-1', name: 'time', content: [{ type: 'text', text: '{"now":"12:00"}' }] },
      { type: 'tool_result', callId: 'call_id1', name: 'weather', content: [{ type: 'text', text: 'sunny' }] },
      { type: 'tool_result', callId: 'call_id2', name: 'weather', content: [{ type: 'text', text: 'no station' }], isError: true },
    ]);
  });

  it('recovers opaque values of other protocols wrapped in thoughtSignature', () => {
    const thinking = wrapOpaque({ origin: 'messages', value: JSON.stringify({ s: 'anthropic-signature' }) });
    const redacted = wrapOpaque({ origin: 'messages', value: JSON.stringify({ r: 'redacted-data' }) });
    const encrypted = wrapOpaque({ origin: 'responses', value: JSON.stringify({ e: 'enc', i: 'rs_1' }) });
    const callSignature = wrapOpaque({ origin: 'messages', value: 'raw-call-signature' });
    const { request } = decode({
      contents: [
        user('q'),
        {
          role: 'model',
          parts: [
            { text: 'thinking…', thought: true, thoughtSignature: thinking },
            { text: '', thoughtSignature: redacted },
            { text: '', thought: true, thoughtSignature: encrypted },
            { functionCall: { id: 'toolu_1', name: 'f', args: {} }, thoughtSignature: callSignature },
          ],
        },
      ],
    });
    expect(request.turns[1].parts).toEqual([
      { type: 'reasoning', text: 'thinking…', signature: { origin: 'messages', value: 'anthropic-signature' } },
      { type: 'reasoning', text: '', redacted: { origin: 'messages', value: 'redacted-data' } },
      { type: 'reasoning', text: '', encrypted: { origin: 'responses', value: 'enc' }, itemId: { origin: 'responses', value: 'rs_1' } },
      { type: 'tool_call', id: 'toolu_1', name: 'f', argumentsJson: '{}', signature: { origin: 'messages', value: 'raw-call-signature' } },
    ]);
  });

  // Issue 4: each replayed thought part became its own reasoning part, so the signed one had empty
  // text and a Messages upstream rejected it ("Invalid `signature` in `thinking` block").
  it('folds the thought parts a streaming client replays, one per chunk, into one reasoning part with its signature', () => {
    const signature = wrapOpaque({ origin: 'messages', value: JSON.stringify({ s: 'anthropic-signature' }) });
    const { request } = decode({
      contents: [
        user('q'),
        {
          role: 'model',
          parts: [
            { text: 'The user ', thought: true },
            { text: 'wrote: q.', thought: true },
            { text: '', thought: true, thoughtSignature: signature },
            { text: 'more', thought: true },
            { text: '', thought: true },
            { text: 'Answer' },
            { text: 'after text', thought: true },
            { functionCall: { id: 'toolu_1', name: 'f', args: {} } },
          ],
        },
      ],
    });
    expect(request.turns[1].parts).toEqual([
      { type: 'reasoning', text: 'The user wrote: q.', signature: { origin: 'messages', value: 'anthropic-signature' } },
      // A signature ends the run: the thoughts after it are another block, unsigned.
      { type: 'reasoning', text: 'more' },
      { type: 'text', text: 'Answer' },
      { type: 'reasoning', text: 'after text' },
      { type: 'tool_call', id: 'toolu_1', name: 'f', argumentsJson: '{}' },
    ]);
  });

  it('decodes function declarations (OpenAPI or JSON Schema) and keeps other tools as built-ins', () => {
    const { request } = decode({
      contents: [user('a')],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'lookup',
              description: 'find',
              parameters: { type: 'OBJECT', properties: { q: { type: 'STRING', nullable: true } }, required: ['q'] },
            },
            {
              name: 'plain',
              parametersJsonSchema: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false },
            },
            { name: 'bare' },
          ],
        },
        { googleSearch: {} },
        { codeExecution: {} },
      ],
    });
    expect(request.tools).toEqual([
      {
        name: 'lookup',
        description: 'find',
        parameters: { type: 'object', properties: { q: { type: ['string', 'null'] } }, required: ['q'] },
      },
      { name: 'plain', parameters: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false } },
      { name: 'bare', parameters: { type: 'object', properties: {} } },
    ]);
    expect(request.builtinTools).toEqual([
      { protocol: 'generate-content', value: { googleSearch: {} } },
      { protocol: 'generate-content', value: { codeExecution: {} } },
    ]);
  });

  it.each([
    [{ mode: 'AUTO' }, { type: 'auto' }, false],
    [{ mode: 'NONE' }, { type: 'none' }, false],
    [{ mode: 'ANY' }, { type: 'required' }, false],
    [{ mode: 'ANY', allowedFunctionNames: ['lookup'] }, { type: 'tool', name: 'lookup' }, false],
    [{ mode: 'ANY', allowedFunctionNames: ['a', 'b'] }, { type: 'required' }, true],
    [{ mode: 'VALIDATED' }, { type: 'auto' }, true],
    [{ mode: 'MODE_UNSPECIFIED' }, undefined, false],
  ])('maps functionCallingConfig %j', (config, choice, warns) => {
    const { request, warnings } = decode({ contents: [user('a')], toolConfig: { functionCallingConfig: config } });
    expect(request.toolChoice).toEqual(choice);
    expect(warnings.length > 0).toBe(warns);
    if (warns) expect(request.extensions?.fields.toolConfig).toEqual({ functionCallingConfig: config });
  });

  it('maps generationConfig to sampling, response format and reasoning', () => {
    const { request, warnings } = decode({
      contents: [user('a')],
      generationConfig: {
        maxOutputTokens: 100,
        temperature: 1.5,
        topP: 0.9,
        topK: 40,
        stopSequences: ['END'],
        candidateCount: 1,
        seed: 7,
        presencePenalty: 0.1,
        frequencyPenalty: 0.2,
        responseLogprobs: true,
        logprobs: 3,
        responseMimeType: 'application/json',
        responseSchema: { type: 'OBJECT', properties: { a: { type: 'STRING' } } },
        thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
      },
    });
    expect(warnings).toEqual([]);
    expect(request.sampling).toEqual({
      maxOutputTokens: 100,
      temperature: 1.5,
      topP: 0.9,
      topK: 40,
      stop: ['END'],
      n: 1,
      seed: 7,
      presencePenalty: 0.1,
      frequencyPenalty: 0.2,
      logprobs: true,
      topLogprobs: 3,
    });
    expect(request.responseFormat).toEqual({
      type: 'json_schema',
      name: 'response',
      schema: { type: 'object', properties: { a: { type: 'string' } } },
    });
    expect(request.reasoning).toEqual({ budgetTokens: 2048, includeThoughts: true });
  });

  it.each([
    [{ responseMimeType: 'application/json' }, { type: 'json_object' }],
    [
      { responseMimeType: 'application/json', responseJsonSchema: { type: 'object', const: 1 } },
      { type: 'json_schema', name: 'response', schema: { type: 'object', const: 1 } },
    ],
    [{ responseMimeType: 'text/plain' }, { type: 'text' }],
    [{}, undefined],
  ])('maps response format %j', (config, format) => {
    expect(decode({ contents: [user('a')], generationConfig: config }).request.responseFormat).toEqual(format);
  });

  it('reports a response MIME type other protocols cannot express and keeps it for a native upstream', () => {
    const { request, warnings } = decode({
      contents: [user('a')],
      generationConfig: { responseMimeType: 'text/x.enum', responseSchema: { type: 'STRING', enum: ['a'] } },
    });
    expect(request.responseFormat).toBeUndefined();
    expect(warnings.map((w) => w.field)).toEqual(['generationConfig.responseMimeType']);
    expect(request.extensions?.fields.generationConfig).toEqual({
      responseMimeType: 'text/x.enum',
      responseSchema: { type: 'STRING', enum: ['a'] },
    });
  });

  it.each([
    [{ thinkingBudget: 0 }, { disabled: true, budgetTokens: 0 }],
    [{ thinkingBudget: -1, includeThoughts: true }, { includeThoughts: true }],
    [{ thinkingLevel: 'HIGH' }, { effort: 'high' }],
    [
      { thinkingLevel: 'low', includeThoughts: false },
      { effort: 'low', includeThoughts: false },
    ],
  ])('maps thinkingConfig %j', (thinkingConfig, reasoning) => {
    expect(decode({ contents: [user('a')], generationConfig: { thinkingConfig } }).request.reasoning).toEqual(reasoning);
  });

  it('keeps safetySettings, cachedContent and unknown fields as Generate-Content extensions', () => {
    const { request } = decode({
      contents: [user('a')],
      safetySettings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_NONE' }],
      cachedContent: 'cachedContents/abc',
      labels: { team: 'x' },
      generationConfig: { temperature: 1, responseModalities: ['TEXT', 'IMAGE'], mediaResolution: 'MEDIA_RESOLUTION_LOW' },
      toolConfig: { retrievalConfig: { languageCode: 'en' } },
    });
    expect(request.extensions).toEqual({
      protocol: 'generate-content',
      fields: {
        safetySettings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_NONE' }],
        cachedContent: 'cachedContents/abc',
        labels: { team: 'x' },
        generationConfig: { responseModalities: ['TEXT', 'IMAGE'], mediaResolution: 'MEDIA_RESOLUTION_LOW' },
        toolConfig: { retrievalConfig: { languageCode: 'en' } },
      },
    });
  });

  it('has no extensions when the body holds only modelled fields', () => {
    expect(decode({ contents: [user('a')], generationConfig: { temperature: 1 } }).request.extensions).toBeUndefined();
  });
});

describe('decodeGenerateContentRequest with snake_case field names (protobuf JSON accepts both)', () => {
  it('reads snake_case fields and leaves free-form values untouched', () => {
    const { request } = decodeGenerateContentRequest(
      {
        system_instruction: { parts: [{ text: 'sys' }] },
        contents: [
          { role: 'user', parts: [{ inline_data: { mime_type: 'image/jpeg', data: 'AA' } }] },
          { role: 'model', parts: [{ function_call: { name: 'f', args: { snake_key: 1 } }, thought_signature: 's' }] },
          { role: 'user', parts: [{ function_response: { name: 'f', response: { raw_value: 2 } } }] },
        ],
        tools: [{ function_declarations: [{ name: 'f', parameters: { type: 'object', properties: { snake_key: { type: 'integer' } } } }] }],
        tool_config: { function_calling_config: { mode: 'AUTO' } },
        generation_config: { max_output_tokens: 10, stop_sequences: ['x'], thinking_config: { thinking_budget: 0 } },
      },
      testContext(),
    );
    expect(request.system).toEqual([{ type: 'text', text: 'sys' }]);
    expect(request.turns).toEqual([
      { role: 'user', parts: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: 'AA' } }] },
      {
        role: 'assistant',
        parts: [
          {
            type: 'tool_call',
            id: 'call_id1',
            name: 'f',
            argumentsJson: '{"snake_key":1}',
            signature: { origin: 'generate-content', value: 's' },
          },
        ],
      },
      {
        role: 'user',
        parts: [{ type: 'tool_result', callId: 'call_id1', name: 'f', content: [{ type: 'text', text: '{"raw_value":2}' }] }],
      },
    ]);
    expect(request.tools[0].parameters).toEqual({ type: 'object', properties: { snake_key: { type: 'integer' } } });
    expect(request.toolChoice).toEqual({ type: 'auto' });
    expect(request.sampling).toEqual({ maxOutputTokens: 10, stop: ['x'] });
    expect(request.reasoning).toEqual({ disabled: true, budgetTokens: 0 });
  });
});
