/** Generate-Content through the official SDK (v1beta), streamed and not: every feature the gateway exercises. */
import { Type, type Content, type FunctionDeclaration, type GenerateContentResponse, type GoogleGenAI, type Part } from '@google/genai';
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { countTextTokens } from '../../scripts/provider-sim/tokens';
import { chunkText } from '../../scripts/provider-sim/answer/chunk-text';
import { isWellFormedThoughtSignature } from '../../scripts/provider-sim/answer/signatures';
import { genai, GOOGLE_HEADERS, parseSse, PNG_BASE64, post } from './sim-support';

let sim: Simulator;
let client: GoogleGenAI;
beforeAll(async () => {
  sim = await startSimulator();
  client = genai(sim);
});
afterAll(async () => sim.close());

const MODEL = 'gemini-2.5-flash';
const weather: FunctionDeclaration = {
  name: 'get_weather',
  parameters: {
    type: Type.OBJECT,
    properties: { city: { type: Type.STRING }, unit: { type: Type.STRING, enum: ['C', 'F'] } },
    required: ['city', 'unit'],
  },
};
// Lower-case type names, as many clients send them: the API accepts both.
const time = {
  name: 'get_time',
  parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
} as unknown as FunctionDeclaration;

async function collect(stream: AsyncGenerator<GenerateContentResponse>): Promise<GenerateContentResponse[]> {
  const chunks: GenerateContentResponse[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

function partsOf(chunks: GenerateContentResponse[]): Part[] {
  return chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []);
}

describe('text', () => {
  it('echoes the last user text with usage metadata', async () => {
    const response = await client.models.generateContent({
      model: MODEL,
      contents: 'Hello there',
      config: { systemInstruction: 'Be brief.' },
    });
    expect(response.text).toBe('Echo: Hello there');
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
    expect(response.modelVersion).toBe(MODEL);
    expect(response.responseId).toEqual(expect.any(String));
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: countTextTokens('Be brief.') + countTextTokens('Hello there'),
      candidatesTokenCount: countTextTokens('Echo: Hello there'),
      totalTokenCount: countTextTokens('Be brief.') + countTextTokens('Hello there') + countTextTokens('Echo: Hello there'),
    });
  });

  it('streams with alt=sse: text deltas, cumulative usage, finish reason on the last chunk only', async () => {
    const chunks = await collect(
      await client.models.generateContentStream({ model: MODEL, contents: 'one two three four five six seven' }),
    );
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((chunk) => chunk.text).join('')).toBe('Echo: one two three four five six seven');
    expect(chunks.slice(0, -1).every((chunk) => chunk.candidates?.[0]?.finishReason === undefined)).toBe(true);
    expect(chunks[chunks.length - 1]!.candidates?.[0]?.finishReason).toBe('STOP');
    expect(chunks[chunks.length - 1]!.usageMetadata?.candidatesTokenCount).toBe(countTextTokens('Echo: one two three four five six seven'));
    expect(sim.requests[sim.requests.length - 1]!.path).toBe(`/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`);
  });

  it('streams a JSON array without alt=sse', async () => {
    const answer = await post(
      sim,
      `/v1beta/models/${MODEL}:streamGenerateContent`,
      { contents: [{ role: 'user', parts: [{ text: 'a b c d e f' }] }] },
      GOOGLE_HEADERS,
    );
    expect(answer.headers.get('content-type')).toContain('application/json');
    const chunks = answer.json as { candidates: { content: { parts: { text: string }[] } }[] }[];
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((chunk) => chunk.candidates[0]!.content.parts[0]!.text).join('')).toBe('Echo: a b c d e f');
  });

  it('accepts the key as ?key= too', async () => {
    const answer = await post(sim, `/v1beta/models/${MODEL}:generateContent?key=sim-key`, { contents: [{ parts: [{ text: 'hi' }] }] });
    expect(answer.status).toBe(200);
  });

  it('truncates to maxOutputTokens (MAX_TOKENS) and cuts at stop sequences', async () => {
    const long = await client.models.generateContent({
      model: MODEL,
      contents: 'a long sentence that will not fit',
      config: { maxOutputTokens: 3 },
    });
    expect(long.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
    expect(long.text).toBe('Echo: a long');
    const stopped = await client.models.generateContent({ model: MODEL, contents: 'keep HALT drop', config: { stopSequences: ['HALT'] } });
    expect(stopped.text).toBe('Echo: keep ');
    expect(stopped.candidates?.[0]?.finishReason).toBe('STOP');
  });
});

describe('tools', () => {
  const tools = [{ functionDeclarations: [weather, time] }];

  it('calls the named function with schema-valid args', async () => {
    const response = await client.models.generateContent({ model: MODEL, contents: 'get_weather please', config: { tools } });
    expect(response.functionCalls).toEqual([{ name: 'get_weather', args: { city: 'example', unit: 'C' } }]);
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
  });

  it('streams parallel calls, each whole, then a final chunk with the finish reason', async () => {
    const chunks = await collect(
      await client.models.generateContentStream({ model: MODEL, contents: 'get_time and get_weather', config: { tools } }),
    );
    const calls = partsOf(chunks)
      .filter((part) => part.functionCall !== undefined)
      .map((part) => part.functionCall!.name);
    expect(calls).toEqual(['get_time', 'get_weather']);
    expect(chunks[chunks.length - 1]!.candidates?.[0]?.finishReason).toBe('STOP');
  });

  // Raw answers: the SDK drops finishMessage from Gemini API (non-Vertex) answers.
  it('explains a whole function-call answer in finishMessage, as Gemini does; not its stream nor a text answer', async () => {
    const candidate = (json: unknown): Record<string, unknown> => (json as { candidates: Record<string, unknown>[] }).candidates[0]!;
    const request = (text: string): unknown => ({ contents: [{ role: 'user', parts: [{ text }] }], tools });
    const call = await post(sim, `/v1beta/models/${MODEL}:generateContent`, request('get_time please'), GOOGLE_HEADERS);
    expect(candidate(call.json)).toMatchObject({ finishReason: 'STOP', finishMessage: 'Model generated function call(s).' });
    const text = await post(sim, `/v1beta/models/${MODEL}:generateContent`, request('hello'), GOOGLE_HEADERS);
    expect(Object.keys(candidate(text.json))).not.toContain('finishMessage');
    const stream = await post(sim, `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`, request('get_time please'), GOOGLE_HEADERS);
    const streamed = parseSse(stream.text).map((event) => candidate(JSON.parse(event.data)));
    expect(streamed[streamed.length - 1]!.finishReason).toBe('STOP');
    expect(streamed.filter((one) => 'finishMessage' in one)).toEqual([]);
  });

  it('honours mode ANY with allowed names, and NONE', async () => {
    const forced = await client.models.generateContent({
      model: MODEL,
      contents: 'hello',
      config: { tools, toolConfig: { functionCallingConfig: { mode: 'ANY' as never, allowedFunctionNames: ['get_time'] } } },
    });
    expect(forced.functionCalls?.map((call) => call.name)).toEqual(['get_time']);
    const none = await client.models.generateContent({
      model: MODEL,
      contents: 'get_time',
      config: { tools, toolConfig: { functionCallingConfig: { mode: 'NONE' as never } } },
    });
    expect(none.functionCalls).toBeUndefined();
  });

  it('quotes function responses in the next turn', async () => {
    const contents: Content[] = [
      { role: 'user', parts: [{ text: 'get_time and get_weather' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_time', args: { zone: 'UTC' } } },
          { functionCall: { name: 'get_weather', args: { city: 'Oslo', unit: 'C' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { content: 'snow' } } },
          { functionResponse: { name: 'get_time', response: { hour: 9 } } },
        ],
      },
    ];
    const response = await client.models.generateContent({ model: MODEL, contents, config: { tools } });
    expect(response.text).toBe('Tool result: snow\nTool result: {"hour":9}');
  });
});

describe('thinking', () => {
  it('returns thought parts and a thoughtSignature on the first answer part, with thoughtsTokenCount', async () => {
    const response = await client.models.generateContent({
      model: 'gemini-2.5-pro',
      contents: 'ponder this',
      config: { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } },
    });
    const parts = response.candidates![0]!.content!.parts!;
    expect(parts[0]!.thought).toBe(true);
    expect(parts[1]!.text).toBe('Echo: ponder this');
    expect(isWellFormedThoughtSignature(parts[1]!.thoughtSignature!)).toBe(true);
    expect(response.usageMetadata?.thoughtsTokenCount).toBe(countTextTokens(parts[0]!.text!));
    expect(response.usageMetadata?.candidatesTokenCount).toBe(countTextTokens('Echo: ponder this'));
  });

  it('streams unsigned text, then an empty text part with the signature and the finish (google-text.chunks.txt)', async () => {
    const request = { model: 'sim-g3-pro', contents: 'one two three four five six seven' };
    const whole = await client.models.generateContent(request);
    const chunks = await collect(await client.models.generateContentStream(request));
    const last = chunks[chunks.length - 1]!.candidates![0]!;
    expect(chunks.length).toBeGreaterThan(2);
    expect(last.content!.parts).toEqual([{ text: '', thoughtSignature: whole.candidates![0]!.content!.parts![0]!.thoughtSignature }]);
    expect(isWellFormedThoughtSignature(last.content!.parts![0]!.thoughtSignature!)).toBe(true);
    expect(last.finishReason).toBe('STOP');
    const before = chunks.slice(0, -1).map((chunk) => chunk.candidates![0]!);
    expect(before.every((candidate) => candidate.finishReason === undefined)).toBe(true);
    expect(before.flatMap((candidate) => candidate.content!.parts!)).toEqual(
      chunkText('Echo: one two three four five six seven', null).map((text) => ({ text })),
    );
  });

  it('streams thoughts unsigned and signs the first function call, which replays', async () => {
    const tools = [{ functionDeclarations: [weather, time] }];
    const config = { tools, thinkingConfig: { includeThoughts: true } };
    const chunks = await collect(
      await client.models.generateContentStream({ model: 'sim-g3-pro', contents: 'get_time and get_weather', config }),
    );
    const parts = partsOf(chunks);
    const signed = parts.filter((part) => part.thoughtSignature !== undefined);
    expect(signed).toHaveLength(1);
    expect(signed[0]!.functionCall?.name).toBe('get_time');
    expect(parts[0]!.thought).toBe(true);
    expect(chunks[chunks.length - 1]!.candidates![0]!.content!.parts).toEqual([{ text: '' }]);
    const next = await client.models.generateContent({
      model: 'sim-g3-pro',
      config,
      contents: [
        { role: 'user', parts: [{ text: 'get_time and get_weather' }] },
        { role: 'model', parts: parts.filter((part) => part.thought !== true && part.text !== '') },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'get_time', response: { hour: 9 } } },
            { functionResponse: { name: 'get_weather', response: { content: 'warm' } } },
          ],
        },
      ],
    });
    expect(next.text).toBe('Tool result: {"hour":9}\nTool result: warm');
  });

  it('thinks without showing thoughts when includeThoughts is off', async () => {
    const chunks = await collect(
      await client.models.generateContentStream({
        model: 'gemini-2.5-pro',
        contents: 'ponder',
        config: { thinkingConfig: { thinkingBudget: 512 } },
      }),
    );
    expect(partsOf(chunks).some((part) => part.thought === true)).toBe(false);
    expect(chunks[chunks.length - 1]!.usageMetadata?.thoughtsTokenCount).toBeGreaterThan(0);
  });

  it('signs function calls of gemini-3 style models and accepts them replayed', async () => {
    const tools = [{ functionDeclarations: [weather] }];
    const first = await client.models.generateContent({ model: 'sim-g3-pro', contents: 'get_weather', config: { tools } });
    const modelContent = first.candidates![0]!.content!;
    expect(isWellFormedThoughtSignature(modelContent.parts![0]!.thoughtSignature!)).toBe(true);
    const next = await client.models.generateContent({
      model: 'sim-g3-pro',
      config: { tools },
      contents: [
        { role: 'user', parts: [{ text: 'get_weather' }] },
        modelContent,
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { content: 'warm' } } }] },
      ],
    });
    expect(next.text).toBe('Tool result: warm');
  });
});

describe('structured output', () => {
  it('answers JSON valid against responseSchema and responseJsonSchema', async () => {
    const schema = { type: 'OBJECT', properties: { name: { type: 'STRING' }, count: { type: 'INTEGER' } }, required: ['name', 'count'] };
    const response = await client.models.generateContent({
      model: MODEL,
      contents: 'give json',
      config: { responseMimeType: 'application/json', responseSchema: schema },
    });
    expect(JSON.parse(response.text!)).toEqual({ name: 'example', count: 1 });
    const chunks = await collect(
      await client.models.generateContentStream({
        model: MODEL,
        contents: 'give json',
        config: {
          responseMimeType: 'application/json',
          responseJsonSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false },
        },
      }),
    );
    expect(JSON.parse(chunks.map((chunk) => chunk.text ?? '').join(''))).toEqual({ ok: true });
  });
});

describe('vision', () => {
  it('acknowledges inline images with their media type', async () => {
    const response = await client.models.generateContent({
      model: MODEL,
      contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: PNG_BASE64 } }, { text: 'what?' }] }],
    });
    expect(response.text).toBe('Echo: what? [1 image: image/png]');
    expect(response.usageMetadata?.promptTokensDetails).toEqual([
      { modality: 'TEXT', tokenCount: countTextTokens('what?') },
      { modality: 'IMAGE', tokenCount: 85 },
    ]);
  });
});

describe('image generation', () => {
  it('answers an image model asked for IMAGE output with an inline PNG and a text part', async () => {
    const response = await client.models.generateContent({
      model: 'gemini-2.5-flash-image',
      contents: 'a red fox',
      config: { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio: '16:9' } },
    });
    const parts = response.candidates![0]!.content!.parts!;
    const image = parts.find((part) => part.inlineData !== undefined)!;
    expect(image.inlineData!.mimeType).toBe('image/png');
    const png = Buffer.from(image.inlineData!.data!, 'base64');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1344, 768]);
    expect(parts.some((part) => typeof part.text === 'string')).toBe(true);
    expect(response.usageMetadata?.candidatesTokensDetails).toContainEqual({ modality: 'IMAGE', tokenCount: 1290 });
  });
});

describe('prompt caching', () => {
  it('reports cachedContentTokenCount on a repeated long prefix', async () => {
    const systemInstruction = 'Stable system instruction for caching. '.repeat(110);
    await client.models.generateContent({ model: MODEL, contents: 'first', config: { systemInstruction } });
    const second = await client.models.generateContent({ model: MODEL, contents: 'second', config: { systemInstruction } });
    expect(second.usageMetadata?.cachedContentTokenCount).toBe(countTextTokens(systemInstruction));
    expect(second.usageMetadata?.promptTokenCount).toBe(countTextTokens(systemInstruction) + countTextTokens('second'));
  });
});

it('frames SSE chunks as data-only events', async () => {
  const answer = await post(
    sim,
    `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`,
    { contents: [{ parts: [{ text: 'x y z w' }] }] },
    GOOGLE_HEADERS,
  );
  const events = parseSse(answer.text);
  expect(events.every((event) => event.event === null)).toBe(true);
  for (const event of events)
    expect(Object.keys(JSON.parse(event.data))).toEqual(['candidates', 'usageMetadata', 'modelVersion', 'responseId']);
});
