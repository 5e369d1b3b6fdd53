/**
 * Real provider traffic (../shared/captures/generate-content, recorded from the live API) through
 * the upstream decoders and the pass-through meter.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { IrResponse } from '../../../../src/ir/response';
import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import { generateContentCodec } from '../../../../src/protocols/generate-content';
import { convertGenerateContentUsage } from '../../../../src/protocols/generate-content/convert-generate-content-usage';
import { capturesDir, foldStreamEvents, testContext } from '../../../support/sdk-generate-content';

const dir = capturesDir('generate-content');
const describeCaptures = dir ? describe : describe.skip;
if (!dir) console.warn('generate-content captures skipped: ../shared/captures/generate-content is absent');

type Chunk = Record<string, unknown> & { usageMetadata?: Record<string, number> };

function readChunks(name: string): Chunk[] {
  return fs
    .readFileSync(path.join(dir as string, name), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Chunk);
}
function readJson(name: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(dir as string, name), 'utf8')) as Record<string, unknown>;
}
const asSse = (chunks: Chunk[]): string => chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('');
const asJsonArray = (chunks: Chunk[]): string => `[${chunks.map((chunk) => JSON.stringify(chunk, null, 2)).join('\n,\r\n')}\n]`;

/** Deterministic pseudo-random splits (mulberry32), so a failure can be replayed. */
function randomSplits(text: string, seed: number): string[] {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pieces: string[] = [];
  let offset = 0;
  while (offset < text.length) {
    const size = 1 + Math.floor(next() * 64);
    pieces.push(text.slice(offset, offset + size));
    offset += size;
  }
  return pieces;
}

function decodeStream(pieces: string[]): IrStreamEvent[] {
  const decoder = generateContentCodec.upstream.createStreamDecoder(testContext());
  return [...pieces.flatMap((piece) => decoder.push(piece)), ...decoder.end()];
}

/** What the answer says, without synthesized ids: the basis of every twin comparison. */
function summary(response: IrResponse) {
  return {
    text: response.parts
      .filter((p) => p.type === 'text')
      .map((p) => (p.type === 'text' ? p.text : ''))
      .join(''),
    reasoning: response.parts
      .filter((p) => p.type === 'reasoning')
      .map((p) => (p.type === 'reasoning' ? p.text : ''))
      .join(''),
    signatures: response.parts.flatMap((p) => ((p.type === 'reasoning' || p.type === 'tool_call') && p.signature ? [p.signature] : [])),
    toolCalls: response.parts.flatMap((p) =>
      p.type === 'tool_call' ? [{ name: p.name, arguments: JSON.parse(p.argumentsJson) as unknown }] : [],
    ),
    finish: response.finish,
    usage: response.usage,
  };
}

/** The non-streamed body the API would have given for these chunks: parts concatenated, adjacent text merged. */
function mergeChunks(chunks: Chunk[]): Record<string, unknown> {
  const parts: Array<Record<string, unknown>> = [];
  let finishReason: unknown;
  for (const chunk of chunks) {
    const candidate = (chunk.candidates as Array<Record<string, unknown>> | undefined)?.[0];
    if (candidate?.finishReason) finishReason = candidate.finishReason;
    for (const part of (candidate?.content as { parts?: Array<Record<string, unknown>> } | undefined)?.parts ?? []) {
      const previous = parts[parts.length - 1];
      const plainText = typeof part.text === 'string' && part.thought === undefined;
      if (
        plainText &&
        previous &&
        typeof previous.text === 'string' &&
        previous.thought === undefined &&
        previous.thoughtSignature === undefined
      ) {
        previous.text = `${previous.text as string}${part.text as string}`;
        if (part.thoughtSignature) previous.thoughtSignature = part.thoughtSignature;
      } else if (!(plainText && part.text === '' && !part.thoughtSignature)) {
        parts.push({ ...part });
      }
    }
  }
  const last = chunks[chunks.length - 1];
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }],
    usageMetadata: [...chunks].reverse().find((c) => c.usageMetadata?.totalTokenCount !== undefined)?.usageMetadata,
    modelVersion: last.modelVersion,
    responseId: last.responseId,
  };
}

const lastUsage = (chunks: Chunk[]) =>
  convertGenerateContentUsage([...chunks].reverse().find((c) => c.usageMetadata?.totalTokenCount !== undefined)?.usageMetadata);

const TWINS = ['google-text', 'google-reasoning', 'google-reasoning-gemini3', 'google-tool-call', 'google-tool-call-gemini3'];
const STREAMS = dir ? fs.readdirSync(dir).filter((f) => f.endsWith('.chunks.txt')) : [];
const BODIES = dir ? fs.readdirSync(dir).filter((f) => f.endsWith('.json') && !f.includes('429')) : [];

describeCaptures('generate-content captures', () => {
  it('has the captures this suite expects', () => {
    expect(STREAMS.length).toBeGreaterThanOrEqual(7);
    expect(BODIES.length).toBeGreaterThanOrEqual(5);
  });

  it.each(BODIES)('%s decodes with the upstream decoder', (name) => {
    const body = readJson(name);
    const response = generateContentCodec.upstream.decodeResponse(body, testContext());
    expect(response.id).toBe(body.responseId);
    expect(response.usage).toEqual(convertGenerateContentUsage(body.usageMetadata as Record<string, number>));
    // promptTokenCount includes cached tokens; candidates + thoughts is the whole output.
    const meta = body.usageMetadata as Record<string, number>;
    expect(response.usage.outputTokens).toBe(meta.candidatesTokenCount + (meta.thoughtsTokenCount ?? 0));
    expect(response.usage.inputTokens + response.usage.cacheReadTokens).toBe(meta.promptTokenCount);
    expect(['stop', 'tool_calls']).toContain(response.finish.unified);
    expect(response.parts.length).toBeGreaterThan(0);
  });

  it.each(STREAMS)('%s decodes as SSE, with one finish, closed blocks and the last usage', (name) => {
    const chunks = readChunks(name);
    const events = decodeStream([asSse(chunks)]);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    expect(events[0].type).toBe('start');
    expect(events.filter((e) => e.type === 'finish')).toHaveLength(1);
    const starts = events.filter((e) => e.type === 'block_start').map((e) => (e.type === 'block_start' ? e.index : -1));
    const ends = events.filter((e) => e.type === 'block_end').map((e) => (e.type === 'block_end' ? e.index : -1));
    expect(starts).toEqual(starts.map((_, i) => i));
    expect(ends).toEqual(starts);
    expect(foldStreamEvents(events).usage).toEqual(lastUsage(chunks));
  });

  it.each(STREAMS)('%s decodes identically split at random offsets and in JSON-array framing', (name) => {
    const chunks = readChunks(name);
    const whole = decodeStream([asSse(chunks)]);
    for (let seed = 1; seed <= 20; seed++) expect(decodeStream(randomSplits(asSse(chunks), seed))).toEqual(whole);
    expect(decodeStream(randomSplits(asJsonArray(chunks), 99))).toEqual(whole);
  });

  it.each(STREAMS)('%s: the pass-through meter reads the exact usage and finish (SSE, JSON array, split anywhere)', (name) => {
    const chunks = readChunks(name);
    const expected = foldStreamEvents(decodeStream([asSse(chunks)]));
    for (const body of [asSse(chunks), asJsonArray(chunks)]) {
      const meter = generateContentCodec.createPassThroughMeter(true);
      for (const piece of randomSplits(body, 7)) meter.push(piece);
      expect(meter.end()).toEqual({ usage: lastUsage(chunks), finish: expected.finish, error: false });
    }
  });

  it.each(BODIES)('%s: the pass-through meter reads the exact usage of a whole body', (name) => {
    const text = fs.readFileSync(path.join(dir as string, name), 'utf8');
    const meter = generateContentCodec.createPassThroughMeter(false);
    for (const piece of randomSplits(text, 3)) meter.push(piece);
    const body = JSON.parse(text) as Record<string, unknown>;
    const decoded = generateContentCodec.upstream.decodeResponse(body, testContext());
    expect(meter.end()).toEqual({
      usage: convertGenerateContentUsage(body.usageMetadata as Record<string, number>),
      finish: decoded.finish,
      error: false,
    });
  });

  it.each(TWINS)(
    '%s: streamed and non-streamed forms of the same answer agree on text, tool calls, reasoning, finish and usage',
    (name) => {
      const chunks = readChunks(`${name}.chunks.txt`);
      const streamed = summary(foldStreamEvents(decodeStream([asSse(chunks)])));
      const whole = summary(generateContentCodec.upstream.decodeResponse(mergeChunks(chunks), testContext()));
      expect(streamed).toEqual(whole);
    },
  );

  it.each(TWINS)('%s: the recorded stream and the recorded body (two live calls) agree on what they share', (name) => {
    const streamed = summary(foldStreamEvents(decodeStream([asSse(readChunks(`${name}.chunks.txt`))])));
    const whole = summary(generateContentCodec.upstream.decodeResponse(readJson(`${name}.json`), testContext()));
    // Two separate generations: the wording and token counts differ, the shape of the answer does not.
    expect(streamed.toolCalls).toEqual(whole.toolCalls);
    expect(streamed.finish).toEqual(whole.finish);
    expect(streamed.usage.inputTokens).toBe(whole.usage.inputTokens);
    expect(streamed.signatures.length).toBe(whole.signatures.length);
    expect(streamed.text === '').toBe(whole.text === '');
    // Every text capture answers the same question about the word "strawberry".
    for (const text of [streamed.text, whole.text]) if (text !== '') expect(text).toContain('strawberry');
  });

  it('decodes streamed tool-call arguments (partialArgs) into whole calls', () => {
    const tools = (name: string) => summary(foldStreamEvents(decodeStream([asSse(readChunks(name))])));
    expect(tools('google-stream-tool-call-arguments.chunks.txt').toolCalls).toEqual([
      { name: 'getWeather', arguments: { location: 'Boston' } },
      { name: 'getWeather', arguments: { location: 'San Francisco' } },
    ]);
    const noArgs = tools('google-stream-no-args-tool-call.chunks.txt');
    expect(noArgs.toolCalls).toEqual([
      { name: 'read_theme', arguments: {} },
      { name: 'read_screen', arguments: { id: 'A' } },
      { name: 'read_screen', arguments: { id: 'B' } },
      { name: 'read_screen', arguments: { id: 'C' } },
    ]);
    expect(noArgs.reasoning).toContain('Processing User Requests');
    expect(noArgs.finish).toEqual({ unified: 'tool_calls', raw: 'STOP' });
  });

  it('google-429-retry-info.json decodes to rate_limit with the RetryInfo delay', () => {
    const body = fs.readFileSync(path.join(dir as string, 'google-429-retry-info.json'), 'utf8');
    const error = generateContentCodec.upstream.decodeError(429, body, { 'content-type': 'application/json' });
    expect(error.kind).toBe('rate_limit');
    expect(error.status).toBe(429);
    expect(error.message).toBe('You exceeded your current quota, please check your plan.');
    expect(error.retryAfterSeconds).toBe(34.4);
    expect(error.upstream).toEqual({ status: 429, body });
  });
});
