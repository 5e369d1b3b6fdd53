/**
 * Real provider traffic (../shared/captures/responses): every capture decodes; each recorded
 * stream, replayed whole and split at random byte offsets, agrees with the non-streamed decoding
 * of the same answer; the pass-through meter reads the captures' usage exactly.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ContentPart } from '../../../../src/ir/parts';
import type { Usage } from '../../../../src/ir/usage';
import { responsesCodec } from '../../../../src/protocols/responses';
import { convertResponsesUsage } from '../../../../src/protocols/responses/convert-usage';
import {
  capturesRoot,
  collectIrStream,
  decodeContext,
  readCaptureLines,
  seededRandom,
  splitBytesRandomly,
  toResponsesSse,
  type CollectedStream,
} from '../../../support/sdk-responses';

const root = capturesRoot();
const folder = root === undefined ? undefined : path.join(root, 'responses');
const describeCaptures = folder !== undefined && fs.existsSync(folder) ? describe : describe.skip;
if (folder === undefined) {
  console.warn('responses captures skipped: ../shared/captures is absent');
}

const codec = responsesCodec;

function capture(name: string): string {
  return path.join(folder ?? '', name);
}

/**
 * The first and last lines of `parallel-tool-call-wrapper.1.chunks.txt` lack their final `}` (a
 * defect of the capture itself, not of the provider). Those lines are repaired here, and only
 * those: any other unparsable line fails the test.
 */
const KNOWN_TRUNCATED = new Set(['parallel-tool-call-wrapper.1.chunks.txt#0', 'parallel-tool-call-wrapper.1.chunks.txt#5']);

function repaired(file: string, index: number, line: string): string {
  try {
    JSON.parse(line);
    return line;
  } catch (error) {
    if (!KNOWN_TRUNCATED.has(`${path.basename(file)}#${index}`)) throw error;
    return `${line}}`;
  }
}

/** A chunks file may hold several recorded streams back to back: one per `response.created`. */
function streamsOf(file: string, repair = true): string[][] {
  const streams: string[][] = [];
  readCaptureLines(file).forEach((raw, index) => {
    const line = repair ? repaired(file, index, raw) : raw;
    const created = line.includes('"type":"response.created"') || line.includes('"type": "response.created"');
    if (created || streams.length === 0) streams.push([]);
    streams[streams.length - 1].push(line);
  });
  return streams;
}

function decodeStream(pieces: string[], toolNames: Record<string, string> = {}): CollectedStream {
  const decoder = codec.upstream.createStreamDecoder(decodeContext(toolNames));
  const events = pieces.flatMap((piece) => decoder.push(piece));
  events.push(...decoder.end());
  return collectIrStream(events);
}

/** What both twins must agree on; opaque encrypted values are re-encrypted per event, so only their presence. */
function summary(parts: ContentPart[]): unknown[] {
  return parts.map((part) => {
    switch (part.type) {
      case 'reasoning':
        return { type: part.type, text: part.text, encrypted: part.encrypted !== undefined, itemId: part.itemId?.value };
      case 'native':
        return { type: part.type, item: part.value.type, id: part.value.id };
      default:
        return part;
    }
  });
}

function terminalResponse(lines: string[]): Record<string, unknown> | undefined {
  const last = JSON.parse(lines[lines.length - 1]) as { type: string; response?: Record<string, unknown> };
  return last.type === 'response.completed' || last.type === 'response.incomplete' ? last.response : undefined;
}

interface StreamCase {
  file: string;
  stream: number;
  toolNames?: Record<string, string>;
  /** The non-streamed twin: the terminal event's response, or the `.json` file when that one is empty. */
  twin: 'terminal' | 'json';
  expect: { usage: Usage; finish: string; text?: string; tools?: Array<{ name: string; args: string; id?: string }>; reasoning?: string };
}

const usage = (input: number, cached: number, output: number, reasoning: number): Usage => ({
  inputTokens: input - cached,
  cacheReadTokens: cached,
  cacheWriteTokens: 0,
  outputTokens: output,
  reasoningTokens: reasoning,
});

const STREAM_CASES: StreamCase[] = [
  { file: 'azure-text.1.chunks.txt', stream: 0, twin: 'terminal', expect: { usage: usage(11, 0, 11, 0), finish: 'stop', text: 'Hello' } },
  {
    file: 'azure-tool-call.1.chunks.txt',
    stream: 0,
    twin: 'terminal',
    expect: { usage: usage(45, 0, 24, 0), finish: 'tool_calls', tools: [{ name: 'weather', args: '{"location":"San Francisco"}' }] },
  },
  {
    file: 'openai-reasoning-encrypted-content.1.chunks.txt',
    stream: 0,
    twin: 'terminal',
    expect: {
      usage: usage(134, 0, 28, 0),
      finish: 'tool_calls',
      reasoning: '**Calculating step-by-step using calculator**',
      tools: [{ name: 'calculator', args: '{"a":12,"b":7,"op":"add"}', id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn' }],
    },
  },
  {
    file: 'openai-reasoning-encrypted-content.1.chunks.txt',
    stream: 1,
    twin: 'terminal',
    expect: { usage: usage(221, 0, 26, 0), finish: 'tool_calls', tools: [{ name: 'calculator', args: '{"a":19,"b":3,"op":"multiply"}' }] },
  },
  {
    file: 'openai-reasoning-encrypted-content.1.chunks.txt',
    stream: 3,
    twin: 'terminal',
    expect: { usage: usage(299, 0, 12, 0), finish: 'stop', text: 'The final result is **570**.' },
  },
  {
    file: 'openai-web-search-tool.1.chunks.txt',
    stream: 0,
    twin: 'terminal',
    expect: { usage: usage(31073, 3712, 4416, 3712), finish: 'stop', text: 'I checked today’s tech headlines' },
  },
  {
    file: 'parallel-tool-call-wrapper.1.chunks.txt',
    stream: 0,
    twin: 'json',
    toolNames: { weather: 'weather', cityAttractions: 'cityAttractions' },
    expect: {
      usage: usage(34, 0, 28, 0),
      finish: 'tool_calls',
      tools: [
        { name: 'weather', args: '{"location":"San Francisco"}', id: 'call_parallel_0' },
        { name: 'cityAttractions', args: '{"city":"Rome"}', id: 'call_parallel_1' },
      ],
    },
  },
];

describeCaptures('Responses captures', () => {
  it('covers every capture file in the folder', () => {
    const covered = new Set([...STREAM_CASES.map((c) => c.file), 'openai-error.1.chunks.txt']);
    const chunkFiles = fs.readdirSync(folder ?? '').filter((name) => name.endsWith('.chunks.txt'));
    expect(chunkFiles.filter((name) => !covered.has(name))).toEqual([]);
  });

  describe.each(STREAM_CASES)('$file stream $stream', (testCase) => {
    const lines = (): string[] => streamsOf(capture(testCase.file))[testCase.stream];

    it('decodes whole with the expected text, tool calls, reasoning, finish and usage', () => {
      const decoded = decodeStream([toResponsesSse(lines())], testCase.toolNames);
      expect(decoded.error).toBeUndefined();
      expect(decoded.finish?.unified).toBe(testCase.expect.finish);
      expect(decoded.usage).toEqual(testCase.expect.usage);
      const text = decoded.parts
        .filter((p) => p.type === 'text')
        .map((p) => (p as { text: string }).text)
        .join('');
      if (testCase.expect.text !== undefined) expect(text.startsWith(testCase.expect.text)).toBe(true);
      const tools = decoded.parts.flatMap((p) => (p.type === 'tool_call' ? [{ name: p.name, args: p.argumentsJson, id: p.id }] : []));
      expect(tools.map(({ name, args }) => ({ name, args }))).toEqual(
        (testCase.expect.tools ?? []).map(({ name, args }) => ({ name, args })),
      );
      (testCase.expect.tools ?? []).forEach((tool, index) => {
        if (tool.id) expect(tools[index].id).toBe(tool.id);
      });
      if (testCase.expect.reasoning !== undefined) {
        const reasoning = decoded.parts.find((p) => p.type === 'reasoning');
        expect(reasoning?.type === 'reasoning' && reasoning.text.startsWith(testCase.expect.reasoning)).toBe(true);
        expect(reasoning?.type === 'reasoning' && reasoning.encrypted?.origin).toBe('responses');
      }
    });

    it('agrees with the non-streamed twin', () => {
      const streamed = decodeStream([toResponsesSse(lines())], testCase.toolNames);
      const body =
        testCase.twin === 'terminal'
          ? terminalResponse(lines())
          : (JSON.parse(fs.readFileSync(capture(testCase.file.replace('.chunks.txt', '.json')), 'utf8')) as unknown);
      const whole = codec.upstream.decodeResponse(body, decodeContext(testCase.toolNames));
      expect(summary(streamed.parts)).toEqual(summary(whole.parts));
      expect(streamed.finish).toEqual(whole.finish);
      expect(streamed.usage).toEqual(whole.usage);
      expect(streamed.id).toBe(whole.id);
    });

    it.each([1, 2, 3, 4, 5])('gives the same events when split at random byte offsets (seed %i)', (seed) => {
      const sse = toResponsesSse(lines());
      const whole = decodeStream([sse], testCase.toolNames);
      const split = decodeStream(splitBytesRandomly(sse, seededRandom(seed), seed * 7), testCase.toolNames);
      expect(split).toEqual(whole);
    });

    it('is metered exactly on the pass-through path', () => {
      const meter = codec.createPassThroughMeter(true);
      for (const piece of splitBytesRandomly(toResponsesSse(lines()), seededRandom(9))) meter.push(piece);
      const reading = meter.end();
      expect(reading.error).toBe(false);
      expect(reading.usage).toEqual(testCase.expect.usage);
      expect(reading.finish?.unified).toBe(testCase.expect.finish);
    });
  });

  it('reports the recorded mid-stream error as an error event, never a clean finish', () => {
    const lines = streamsOf(capture('openai-error.1.chunks.txt'))[0];
    const decoded = decodeStream([toResponsesSse(lines)]);
    expect(decoded.finish).toBeUndefined();
    expect(decoded.error?.message).toMatch(/exceeded your current quota/);
    const meter = codec.createPassThroughMeter(true);
    meter.push(toResponsesSse(lines));
    expect(meter.end().error).toBe(true);
  });

  it('turns the recorded error body into a GatewayError with the provider message', () => {
    const body = fs.readFileSync(capture('openai-error.1.json'), 'utf8');
    const error = codec.upstream.decodeError(429, body, { 'retry-after': '7' });
    expect(error.kind).toBe('rate_limit');
    expect(error.message).toMatch(/^You exceeded your current quota/);
    expect(error.retryAfterSeconds).toBe(7);
    expect(error.upstream).toEqual({ status: 429, body });
    const meter = codec.createPassThroughMeter(false);
    meter.push(body);
    expect(meter.end().error).toBe(true);
  });

  it.each([
    ['azure-text.1.json', usage(11, 0, 11, 0), 'stop', 'Word'],
    ['azure-tool-call.1.json', usage(45, 0, 24, 0), 'tool_calls', ''],
    ['openai-reasoning-encrypted-content.1.json', usage(865, 0, 163, 128), 'stop', '12 + 7 = 19'],
    ['openai-web-search-tool.1.json', undefined, 'stop', ''],
    ['parallel-tool-call-wrapper.1.json', usage(34, 0, 28, 0), 'tool_calls', ''],
  ])('decodes the non-streamed %s and meters it exactly', (file, expectedUsage, finish, text) => {
    const raw = fs.readFileSync(capture(file), 'utf8');
    const body = JSON.parse(raw) as { usage: unknown; output: Array<{ type: string }> };
    const decoded = codec.upstream.decodeResponse(body, decodeContext());
    expect(decoded.finish.unified).toBe(finish);
    expect(decoded.usage).toEqual(expectedUsage ?? convertResponsesUsage(body.usage));
    const decodedText = decoded.parts
      .filter((p) => p.type === 'text')
      .map((p) => (p as { text: string }).text)
      .join('');
    expect(decodedText.startsWith(text)).toBe(true);
    // Every output item is represented: messages by their text, others one part each.
    const nonMessage = body.output.filter((item) => item.type !== 'message').length;
    expect(decoded.parts.filter((p) => p.type !== 'text').length).toBe(nonMessage);
    const meter = codec.createPassThroughMeter(false);
    for (const piece of splitBytesRandomly(raw, seededRandom(3))) meter.push(piece);
    const reading = meter.end();
    expect(reading).toEqual({ usage: decoded.usage, finish: decoded.finish, error: false });
  });

  it('never turns a corrupt frame into a clean finish (the unrepaired parallel capture)', () => {
    const lines = streamsOf(capture('parallel-tool-call-wrapper.1.chunks.txt'), false)[0];
    const sse = lines.map((line) => `event: x\ndata: ${line}\n\n`).join('');
    const decoded = decodeStream([sse], { weather: 'weather', cityAttractions: 'cityAttractions' });
    expect(decoded.finish).toBeUndefined();
    expect(decoded.error?.kind).toBe('upstream_error');
  });

  it('leaves the parallel wrapper alone when the request declared no such tools', () => {
    const lines = streamsOf(capture('parallel-tool-call-wrapper.1.chunks.txt'))[0];
    const decoded = decodeStream([toResponsesSse(lines)]);
    expect(decoded.parts).toHaveLength(1);
    expect(decoded.parts[0]).toMatchObject({ type: 'tool_call', name: 'parallel', id: 'call_parallel' });
  });
});
