/** Generate-Content rejects what the real API rejects, in its own envelope and status. */
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { thinkingSignature, thoughtSignature } from '../../scripts/provider-sim/answer/signatures';
import { errorOf, GOOGLE_HEADERS, post } from './sim-support';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => sim.close());

const user = (text: string): Record<string, unknown> => ({ role: 'user', parts: [{ text }] });
const calls = (...names: string[]): Record<string, unknown> => ({
  role: 'model',
  parts: names.map((name) => ({ functionCall: { name, args: {} } })),
});
const responses = (...names: string[]): Record<string, unknown> => ({
  role: 'user',
  parts: names.map((name) => ({ functionResponse: { name, response: { content: 'ok' } } })),
});
const declare = (parameters: unknown, name = 'f'): Record<string, unknown> => ({
  tools: [{ functionDeclarations: [{ name, parameters }] }],
});

async function generate(
  model: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = GOOGLE_HEADERS,
): Promise<{ status: number; error: Record<string, unknown> }> {
  const answer = await post(sim, `/v1beta/models/${model}:generateContent`, body, headers);
  return { status: answer.status, error: errorOf(answer) };
}

it.each<[string, string, Record<string, unknown>, RegExp]>([
  ['no contents', 'gemini-2.5-flash', { contents: [] }, /contents is not specified/],
  ['a content without parts', 'gemini-2.5-flash', { contents: [{ role: 'user', parts: [] }] }, /contents\.parts must not be empty/],
  [
    'an invalid role',
    'gemini-2.5-flash',
    { contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] },
    /Please use a valid role: user, model/,
  ],
  ['an unknown part field', 'gemini-2.5-flash', { contents: [{ role: 'user', parts: [{ txt: 'x' }] }] }, /Unknown name "txt"/],
  [
    'fewer function responses than calls',
    'gemini-2.5-flash',
    { contents: [user('go'), calls('a', 'b'), responses('a')] },
    /number of function response parts is equal to the number of function call parts/,
  ],
  [
    'function responses whose names differ from the calls',
    'gemini-2.5-flash',
    { contents: [user('go'), calls('a'), responses('b')] },
    /function response names match the function call names/,
  ],
  [
    'a function response not after a function call',
    'gemini-2.5-flash',
    { contents: [user('go'), responses('a')] },
    /function response turn comes immediately after a function call turn/,
  ],
  [
    'a function call turn not after a user turn',
    'gemini-2.5-flash',
    { contents: [calls('a'), responses('a')] },
    /function call turn comes immediately after a user turn/,
  ],
  [
    'a function name starting with a digit',
    'gemini-2.5-flash',
    { contents: [user('go')], ...declare({ type: 'object' }, '1tool') },
    /Invalid function name/,
  ],
  [
    'a function name with a space',
    'gemini-2.5-flash',
    { contents: [user('go')], ...declare({ type: 'object' }, 'my tool') },
    /Invalid function name/,
  ],
  [
    'additionalProperties in parameters',
    'gemini-2.5-flash',
    { contents: [user('go')], ...declare({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }) },
    /Unknown name "additionalProperties" at 'tools\[0\]\.function_declarations\[0\]\.parameters'/,
  ],
  [
    '$schema in parameters',
    'gemini-2.5-flash',
    { contents: [user('go')], ...declare({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' }) },
    /Unknown name "\$schema"/,
  ],
  [
    'const in a nested property',
    'gemini-2.5-flash',
    { contents: [user('go')], ...declare({ type: 'object', properties: { a: { const: 'x' } } }) },
    /Unknown name "const" at 'tools\[0\]\.function_declarations\[0\]\.parameters\.properties\[0\]\.value'/,
  ],
  [
    'a type array',
    'gemini-2.5-flash',
    { contents: [user('go')], ...declare({ type: 'object', properties: { a: { type: ['string', 'null'] } } }) },
    /Proto field is not repeating/,
  ],
  [
    'additionalProperties in responseSchema',
    'gemini-2.5-flash',
    {
      contents: [user('go')],
      generationConfig: { responseMimeType: 'application/json', responseSchema: { type: 'object', additionalProperties: false } },
    },
    /Unknown name "additionalProperties" at 'generation_config\.response_schema'/,
  ],
  [
    'a responseSchema without the JSON mime type',
    'gemini-2.5-flash',
    { contents: [user('go')], generationConfig: { responseSchema: { type: 'object' } } },
    /response_mime_type must be set/,
  ],
  [
    'more than five stop sequences',
    'gemini-2.5-flash',
    { contents: [user('go')], generationConfig: { stopSequences: ['a', 'b', 'c', 'd', 'e', 'f'] } },
    /at most 5 stop sequences/,
  ],
  [
    'thinking budget 0 on a thinking-only model',
    'gemini-2.5-pro',
    { contents: [user('go')], generationConfig: { thinkingConfig: { thinkingBudget: 0 } } },
    /only works in thinking mode/,
  ],
  [
    'a gemini-3 function call replayed without its thought signature',
    'sim-g3-pro',
    { contents: [user('go'), calls('a'), responses('a')] },
    /Function call is missing a thought_signature in functionCall parts.*default_api:a/,
  ],
  [
    'a thought signature from another family',
    'gemini-2.5-flash',
    { contents: [user('go'), { role: 'model', parts: [{ text: 'hm', thoughtSignature: thinkingSignature('hm') }] }, user('more')] },
    /Corrupted thought signature/,
  ],
  [
    'IMAGE output from a text model',
    'gemini-2.5-flash',
    { contents: [user('draw')], generationConfig: { responseModalities: ['IMAGE'] } },
    /does not support the requested response modalities/,
  ],
])('rejects %s with 400 INVALID_ARGUMENT', async (_name, model, body, message) => {
  const { status, error } = await generate(model, body);
  expect(status).toBe(400);
  expect(error.code).toBe(400);
  expect(error.status).toBe('INVALID_ARGUMENT');
  expect(String(error.message)).toMatch(message);
});

it('accepts gemini-3 history whose first call of each step carries its signature', async () => {
  const signed = {
    role: 'model',
    parts: [{ functionCall: { name: 'a', args: {} }, thoughtSignature: thoughtSignature('a') }, { functionCall: { name: 'b', args: {} } }],
  };
  const answer = await post(
    sim,
    '/v1beta/models/sim-g3-pro:generateContent',
    { contents: [user('go'), signed, responses('a', 'b')] },
    GOOGLE_HEADERS,
  );
  expect(answer.status).toBe(200);
});

it('does not require signatures from gemini-2.5 models', async () => {
  const answer = await post(
    sim,
    '/v1beta/models/gemini-2.5-flash:generateContent',
    { contents: [user('go'), calls('a'), responses('a')] },
    GOOGLE_HEADERS,
  );
  expect(answer.status).toBe(200);
});

it('rejects an unknown model, and one of another protocol, with 404 NOT_FOUND', async () => {
  for (const model of ['gemini-9', 'gpt-5']) {
    const { status, error } = await generate(model, { contents: [user('hi')] });
    expect(status).toBe(404);
    expect(error).toEqual({
      code: 404,
      status: 'NOT_FOUND',
      message: expect.stringContaining(`models/${model} is not found for API version v1beta`),
    });
  }
});

it('rejects a missing key with 403 and a wrong key with 400 API_KEY_INVALID, as Google does', async () => {
  const missing = await generate('gemini-2.5-flash', { contents: [user('hi')] }, {});
  expect(missing.status).toBe(403);
  expect(missing.error.status).toBe('PERMISSION_DENIED');
  const wrong = await generate('gemini-2.5-flash', { contents: [user('hi')] }, { 'x-goog-api-key': 'nope' });
  expect(wrong.status).toBe(400);
  expect(wrong.error).toMatchObject({
    status: 'INVALID_ARGUMENT',
    message: 'API key not valid. Please pass a valid API key.',
    details: [{ reason: 'API_KEY_INVALID' }],
  });
});

it('rejects malformed JSON with 400 INVALID_ARGUMENT', async () => {
  const answer = await post(sim, '/v1beta/models/gemini-2.5-flash:generateContent', '[', GOOGLE_HEADERS);
  expect(answer.status).toBe(400);
  expect(errorOf(answer).status).toBe('INVALID_ARGUMENT');
});
