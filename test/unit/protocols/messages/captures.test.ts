/**
 * Real provider traffic (../shared/captures/messages): every capture decodes with the upstream
 * decoders; a stream decodes identically whole, split at random text offsets and at random byte
 * offsets; the official SDK's accumulation of the same stream, decoded as a complete answer, gives
 * the same parts, finish and usage; the pass-through meter reads each capture's usage exactly.
 *
 * The `.json` and `.chunks.txt` twins were recorded from different generations (their texts and
 * token counts differ), so across twins only the shape is compared: finish, kinds of parts, tool
 * names and argument keys, signed reasoning.
 */
import type { ContentPart } from '../../../../src/ir/parts';
import type { Usage } from '../../../../src/ir/usage';
import { messagesCodec } from '../../../../src/protocols/messages';
import { argumentsToObject } from '../../../../src/protocols/shared/tool-arguments';
import { sdkFinalMessage } from '../../../support/sdk-messages';
import {
  CAPTURES_DIR,
  HAVE_CAPTURES,
  assembleStream,
  captureNames,
  decodeContext,
  readCaptureJson,
  readCaptureSse,
  seededRandom,
  splitRandomly,
  type AssembledStream,
} from './helpers';

const upstream = messagesCodec.upstream;

function usage(inputTokens: number, cacheReadTokens: number, cacheWriteTokens: number, outputTokens: number): Usage {
  return { inputTokens, cacheReadTokens, cacheWriteTokens, outputTokens, reasoningTokens: 0 };
}

/** Read by hand from the capture files: the final cumulative usage of each. */
const EXPECTED: Record<string, { stream: Usage; json?: Usage; raw: string; kinds: string[] }> = {
  'anthropic-clear-thinking.1': { stream: usage(69, 0, 0, 53), json: usage(69, 0, 0, 33), raw: 'end_turn', kinds: ['reasoning', 'text'] },
  'anthropic-code-execution-20260120-prompt-cache.1': {
    stream: usage(6, 6289, 3337, 198),
    raw: 'end_turn',
    kinds: [
      'native:server_tool_use',
      'native:bash_code_execution_tool_result',
      'native:server_tool_use',
      'native:bash_code_execution_tool_result',
      'text',
    ],
  },
  'anthropic-fallback': { stream: usage(412, 0, 0, 264), json: usage(412, 0, 0, 264), raw: 'end_turn', kinds: ['native:fallback', 'text'] },
  'anthropic-json-tool.1': { stream: usage(849, 0, 0, 47), json: usage(1151, 0, 0, 87), raw: 'tool_use', kinds: ['tool_call'] },
  'anthropic-message-delta-input-tokens': { stream: usage(61, 0, 0, 2), raw: 'end_turn', kinds: ['text'] },
  'anthropic-refusal': { stream: usage(18, 0, 0, 5), json: usage(18, 0, 0, 5), raw: 'refusal', kinds: ['refusal'] },
  'anthropic-text': { stream: usage(12, 0, 0, 30), json: usage(12, 0, 0, 29), raw: 'end_turn', kinds: ['text'] },
  'anthropic-tool-no-args': { stream: usage(565, 0, 0, 48), json: usage(602, 0, 0, 93), raw: 'tool_use', kinds: ['text', 'tool_call'] },
  'anthropic-web-search-tool.1': {
    stream: usage(15665, 0, 0, 795),
    json: usage(27118, 0, 0, 600),
    raw: 'end_turn',
    kinds: ['native:server_tool_use', 'native:web_search_tool_result', 'text'],
  },
};

/** Kinds of parts in order, consecutive duplicates collapsed (citation-split text is many blocks). */
function kinds(parts: readonly ContentPart[]): string[] {
  const out: string[] = [];
  for (const part of parts) {
    const kind = part.type === 'native' ? `native:${String(part.value.type)}` : part.type;
    if (out.at(-1) !== kind) out.push(kind);
  }
  return out;
}

/** Kinds without repeats anywhere, for twins that took a different number of search rounds. */
function kindSet(parts: readonly ContentPart[]): string[] {
  return [...new Set(kinds(parts))];
}

function decodeStream(pieces: readonly string[], jsonToolName?: string): AssembledStream {
  const decoder = upstream.createStreamDecoder(decodeContext(jsonToolName ? { jsonToolName } : {}));
  const events = pieces.flatMap((piece) => decoder.push(piece));
  events.push(...decoder.end());
  return assembleStream(events);
}

/** Bytes cut anywhere (inside multi-byte characters too), decoded as the relay does with a streaming TextDecoder. */
function decodeBytes(text: string, cuts: number, random: () => number): AssembledStream {
  const bytes = Buffer.from(text, 'utf8');
  const offsets = Array.from({ length: cuts }, () => Math.floor(random() * (bytes.length + 1))).sort((a, b) => a - b);
  const decoder = new TextDecoder();
  const pieces: string[] = [];
  let from = 0;
  for (const cut of [...offsets, bytes.length]) {
    pieces.push(decoder.decode(bytes.subarray(from, cut), { stream: true }));
    from = cut;
  }
  pieces.push(decoder.decode());
  return decodeStream(pieces);
}

/** Tool arguments as objects: a stream keeps the provider's raw JSON text, a complete answer re-serializes it. */
function withParsedArguments(parts: readonly ContentPart[]): unknown[] {
  return parts.map((part) => (part.type === 'tool_call' ? { ...part, argumentsJson: argumentsToObject(part.argumentsJson) } : part));
}

function toolShapes(parts: readonly ContentPart[]): Array<{ name: string; keys: string[] }> {
  return parts
    .filter((part) => part.type === 'tool_call')
    .map((part) => ({
      name: part.name,
      keys: Object.keys(part.argumentsJson === '' ? {} : (JSON.parse(part.argumentsJson) as object)).sort(),
    }));
}

if (!HAVE_CAPTURES) {
  describe.skip(`Messages captures (skipped: ${CAPTURES_DIR} is absent)`, () => {
    it('needs the captures folder', () => undefined);
  });
} else {
  describe('Messages captures', () => {
    it('knows every capture in the folder (a new capture needs expected values here)', () => {
      const names = new Set([...captureNames('.chunks.txt'), ...captureNames('.json')]);
      expect([...names].sort()).toEqual(Object.keys(EXPECTED).sort());
      for (const name of captureNames('.json')) expect(EXPECTED[name].json).toBeDefined();
    });

    describe.each(captureNames('.chunks.txt'))('stream %s', (name) => {
      const expected = EXPECTED[name];
      const sse = readCaptureSse(name);
      const whole = decodeStream([sse]);

      it('decodes to a clean finish with the exact usage and contiguous block indexes', () => {
        expect(whole.error).toBeUndefined();
        expect(whole.finish?.raw).toBe(expected.raw);
        expect(whole.usage).toEqual(expected.stream);
        expect(kinds(whole.parts)).toEqual(expected.kinds);
        expect(whole.indexes).toEqual(whole.indexes.map((_, i) => i));
      });

      it('decodes the same when the text is split at random offsets', () => {
        for (let seed = 1; seed <= 12; seed++) {
          const random = seededRandom(seed);
          expect(decodeStream(splitRandomly(sse, 1 + Math.floor(random() * 40), random))).toEqual(whole);
        }
      });

      it('decodes the same when the bytes are split at random offsets', () => {
        for (let seed = 100; seed <= 106; seed++) expect(decodeBytes(sse, 60, seededRandom(seed))).toEqual(whole);
      });

      it('decodes the same in tiny pieces (one character each for the smaller captures)', () => {
        // The shared SseParser rescans a partial line on every push, so one character at a time
        // is quadratic on the 10 kB lines of the web-search capture; 7 characters keep it quick.
        const size = sse.length < 20_000 ? 1 : 7;
        const tiny: string[] = [];
        for (let i = 0; i < sse.length; i += size) tiny.push(sse.slice(i, i + size));
        expect(decodeStream(tiny)).toEqual(whole);
      });

      it('agrees with the official SDK accumulation of the same stream, decoded as a complete answer', async () => {
        const message = await sdkFinalMessage(splitRandomly(sse, 7, seededRandom(7)));
        const complete = upstream.decodeResponse(JSON.parse(JSON.stringify(message)), decodeContext());
        expect(withParsedArguments(complete.parts)).toEqual(withParsedArguments(whole.parts));
        expect(complete.finish).toEqual(whole.finish);
        expect(complete.usage).toEqual(whole.usage);
        expect(complete.id).toBe(whole.id);
        expect(complete.model).toBe(whole.model);
      });

      it('yields an error, never a clean finish, when cut before message_stop', () => {
        const stopAt = sse.indexOf('event: message_stop');
        const random = seededRandom(name.length);
        for (let attempt = 0; attempt < 8; attempt++) {
          const cut = Math.floor(random() * stopAt);
          const cutShort = decodeStream([sse.slice(0, cut)]);
          expect(cutShort.error?.kind).toBe('upstream_error');
        }
      });

      it('is metered exactly by the pass-through meter, in random pieces', () => {
        const meter = messagesCodec.createPassThroughMeter(true);
        for (const piece of splitRandomly(sse, 25, seededRandom(3))) meter.push(piece);
        const result = meter.end();
        expect(result).toEqual({ usage: expected.stream, finish: whole.finish, error: false });
      });

      it('is metered as an error when cut before message_stop', () => {
        const meter = messagesCodec.createPassThroughMeter(true);
        meter.push(sse.slice(0, sse.indexOf('event: message_stop')));
        expect(meter.end().error).toBe(true);
      });
    });

    describe.each(captureNames('.json'))('complete answer %s', (name) => {
      const expected = EXPECTED[name];
      const body = readCaptureJson(name);
      const answer = upstream.decodeResponse(body, decodeContext());

      it('decodes with the exact usage and finish', () => {
        expect(answer.usage).toEqual(expected.json);
        expect(answer.finish.raw).toBe(expected.raw);
      });

      it('has the shape of its streamed twin', () => {
        const twin = decodeStream([readCaptureSse(name)]);
        expect(answer.finish).toEqual(twin.finish);
        expect(kindSet(answer.parts)).toEqual(kindSet(twin.parts));
        expect(toolShapes(answer.parts).map((tool) => tool.name)).toEqual(toolShapes(twin.parts).map((tool) => tool.name));
        const signed = (parts: readonly ContentPart[]): boolean[] =>
          parts.filter((part) => part.type === 'reasoning').map((part) => part.signature?.origin === 'messages');
        expect(signed(answer.parts)).toEqual(signed(twin.parts));
      });

      it('is metered exactly by the pass-through meter', () => {
        const meter = messagesCodec.createPassThroughMeter(false);
        const text = JSON.stringify(body);
        meter.push(text.slice(0, 10));
        meter.push(text.slice(10));
        expect(meter.end()).toEqual({ usage: expected.json, finish: answer.finish, error: false });
      });
    });

    it('reads the text, thinking and signature of the thinking stream', () => {
      const stream = decodeStream([readCaptureSse('anthropic-clear-thinking.1')]);
      expect(stream.parts).toEqual([
        {
          type: 'reasoning',
          text: 'The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185',
          signature: { origin: 'messages', value: expect.stringMatching(/^EvQBCkYICxgCKkAxhD4N.*BgB$/) },
        },
        { type: 'text', text: '925 ÷ 5 = 185' },
      ]);
      expect(stream.finish).toEqual({ unified: 'stop', raw: 'end_turn' });
    });

    it('reads a tool call without arguments as an empty argument string in the stream and {} complete', () => {
      const stream = decodeStream([readCaptureSse('anthropic-tool-no-args')]);
      expect(stream.parts[1]).toEqual({
        type: 'tool_call',
        id: 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP',
        name: 'updateIssueList',
        argumentsJson: '',
      });
      expect(stream.finish).toEqual({ unified: 'tool_calls', raw: 'tool_use' });
      const complete = upstream.decodeResponse(readCaptureJson('anthropic-tool-no-args'), decodeContext());
      expect(complete.parts[1]).toEqual({
        type: 'tool_call',
        id: 'toolu_01LRmxn9vGM1d2DZSDBowdZ1',
        name: 'updateIssueList',
        argumentsJson: '{}',
      });
    });

    it('turns the forced json tool into the text answer with finish stop, streamed and complete', () => {
      const stream = decodeStream([readCaptureSse('anthropic-json-tool.1')], 'json');
      expect(stream.parts).toHaveLength(1);
      expect(stream.parts[0].type).toBe('text');
      const streamed = stream.parts[0].type === 'text' ? stream.parts[0].text : '';
      expect(JSON.parse(streamed)).toEqual({ elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] });
      expect(stream.finish).toEqual({ unified: 'stop', raw: 'tool_use' });

      const complete = upstream.decodeResponse(readCaptureJson('anthropic-json-tool.1'), decodeContext({ jsonToolName: 'json' }));
      expect(complete.finish).toEqual({ unified: 'stop', raw: 'tool_use' });
      expect(complete.parts).toHaveLength(1);
      const text = complete.parts[0].type === 'text' ? complete.parts[0].text : '';
      expect((JSON.parse(text) as { elements: unknown[] }).elements).toHaveLength(4);
    });

    it('restores sanitized tool names through the reverse map', () => {
      const stream = decodeStream([readCaptureSse('anthropic-tool-no-args').replace(/updateIssueList/g, 'update_issue_list')]);
      expect(stream.parts[1]).toMatchObject({ name: 'update_issue_list' });
      const decoder = upstream.createStreamDecoder(decodeContext({ toolNames: { update_issue_list: 'update.issue/list' } }));
      const sse = readCaptureSse('anthropic-tool-no-args').replace(/updateIssueList/g, 'update_issue_list');
      const restored = assembleStream([...decoder.push(sse), ...decoder.end()]);
      expect(restored.parts[1]).toMatchObject({ name: 'update.issue/list' });
    });

    it('keeps the server tool input streamed as JSON deltas on the native block', () => {
      const stream = decodeStream([readCaptureSse('anthropic-web-search-tool.1')]);
      expect(stream.parts[0]).toEqual({
        type: 'native',
        protocol: 'messages',
        value: {
          type: 'server_tool_use',
          id: 'srvtoolu_01Bj5uzzLcYG5hfueSLcDH8k',
          name: 'web_search',
          input: { query: 'tech news today September 26 2025' },
        },
      });
    });

    it('reads the refusal explanation as refusal text with finish content_filter', () => {
      const stream = decodeStream([readCaptureSse('anthropic-refusal')]);
      expect(stream.parts).toEqual([{ type: 'refusal', text: expect.stringContaining('violative cyber content') }]);
      expect(stream.finish).toEqual({ unified: 'content_filter', raw: 'refusal' });
    });
  });
}
