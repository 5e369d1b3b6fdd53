/**
 * Real provider traffic (captures/chat: deepseek, groq, mistral, moonshot, openai, xai) through
 * the upstream decoders and the pass-through meter.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chatCodec } from '../../../../src/protocols/chat';
import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import type { Usage } from '../../../../src/ir/usage';
import { accumulateIrEvents, streamContractViolations } from './ir-accumulator';
import { captureToSse, chatCaptureDir, splitAtRandomOffsets, testContext } from './chat-test-context';

const dir = chatCaptureDir();
// describe.skip would still run the body, which reads the capture files: never call it without them.
const describeCaptures =
  dir === undefined
    ? (name: string, _body: () => void) =>
        describe.skip(name, () => {
          it.todo('needs ../shared/captures');
        })
    : describe;
if (dir === undefined) {
  console.warn('captures/chat not found beside the project: capture tests skipped');
}

function usage(inputTokens: number, cacheReadTokens: number, outputTokens: number, reasoningTokens: number): Usage {
  return { inputTokens, cacheReadTokens, cacheWriteTokens: 0, outputTokens, reasoningTokens };
}

/** Hand-computed from each capture's raw usage (PROTOCOLS.md section 3 formulas). */
const STREAMS: Record<string, { finish: string; raw: string; usage: Usage; parts: string[] }> = {
  'deepseek-reasoning': { finish: 'stop', raw: 'stop', usage: usage(18, 0, 219, 205), parts: ['reasoning', 'text'] },
  'deepseek-text': { finish: 'length', raw: 'length', usage: usage(13, 0, 400, 0), parts: ['text'] },
  'deepseek-tool-call': { finish: 'tool_calls', raw: 'tool_calls', usage: usage(19, 320, 83, 39), parts: ['reasoning', 'tool_call'] },
  'groq-tool-call': { finish: 'tool_calls', raw: 'tool_calls', usage: usage(210, 0, 15, 0), parts: ['tool_call'] },
  'mistral-incremental-tool-call': { finish: 'tool_calls', raw: 'tool_calls', usage: usage(43, 128, 14, 0), parts: ['tool_call'] },
  'mistral-tool-call': { finish: 'tool_calls', raw: 'tool_calls', usage: usage(124, 0, 22, 0), parts: ['tool_call'] },
  'moonshotai-stream': { finish: 'stop', raw: 'stop', usage: usage(9, 0, 12, 7), parts: ['reasoning', 'text'] },
  'openai-text': { finish: 'stop', raw: 'stop', usage: usage(16, 0, 300, 0), parts: ['text'] },
  // xai counts reasoning outside completion_tokens: 26 + 196.
  'xai-tool-call': { finish: 'tool_calls', raw: 'tool_calls', usage: usage(1, 290, 222, 196), parts: ['reasoning', 'tool_call'] },
};

const BODIES: Record<string, { finish: string; usage: Usage; parts: string[] }> = {
  'deepseek-reasoning': { finish: 'stop', usage: usage(18, 0, 345, 315), parts: ['reasoning', 'text'] },
  'deepseek-tool-call': { finish: 'tool_calls', usage: usage(19, 320, 92, 48), parts: ['reasoning', 'tool_call'] },
  'groq-tool-call': { finish: 'tool_calls', usage: usage(218, 0, 15, 0), parts: ['tool_call'] },
  'openai-text': { finish: 'stop', usage: usage(16, 0, 363, 0), parts: ['text'] },
  'xai-tool-call': { finish: 'tool_calls', usage: usage(47, 244, 215, 189), parts: ['reasoning', 'tool_call'] },
};

interface Reference {
  text: string;
  reasoning: string;
  calls: Array<{ id: string; name: string; args: string }>;
  finish: string | null;
}

/** The plain reading of the raw lines, independent of the decoder: what the provider said. */
function referenceFromLines(chunksText: string): Reference {
  const ref: Reference = { text: '', reasoning: '', calls: [], finish: null };
  const byKey = new Map<number, { id: string; name: string; args: string }>();
  for (const line of chunksText.split('\n')) {
    if (line.trim() === '') continue;
    const chunk = JSON.parse(line) as {
      choices?: Array<{
        delta?: {
          content?: string | null;
          reasoning_content?: string | null;
          tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>;
        };
        finish_reason?: string | null;
      }>;
    };
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    ref.text += choice.delta?.content ?? '';
    ref.reasoning += choice.delta?.reasoning_content ?? '';
    (choice.delta?.tool_calls ?? []).forEach((call, position) => {
      const key = call.index ?? position;
      let entry = byKey.get(key);
      if (!entry || (call.id && call.id !== entry.id)) {
        entry = { id: call.id ?? '', name: call.function?.name ?? '', args: '' };
        byKey.set(key, entry);
        ref.calls.push(entry);
      }
      entry.args += call.function?.arguments ?? '';
    });
    if (choice.finish_reason) ref.finish = choice.finish_reason;
  }
  return ref;
}

function decodeStream(pieces: readonly string[]): IrStreamEvent[] {
  const decoder = chatCodec.upstream.createStreamDecoder(testContext());
  const events: IrStreamEvent[] = [];
  for (const piece of pieces) events.push(...decoder.push(piece));
  events.push(...decoder.end());
  return events;
}

function readCapture(name: string): string {
  return fs.readFileSync(path.join(dir ?? '', name), 'utf8');
}

describeCaptures('chat captures', () => {
  it('covers every capture in the folder', () => {
    const files = dir === undefined ? [] : fs.readdirSync(dir);
    const streams = files.filter((file) => file.endsWith('.chunks.txt')).map((file) => file.replace('.chunks.txt', ''));
    const bodies = files.filter((file) => file.endsWith('.json')).map((file) => file.replace('.json', ''));
    expect(streams.sort()).toEqual(Object.keys(STREAMS).sort());
    expect(bodies.sort()).toEqual(Object.keys(BODIES).sort());
  });

  describe.each(Object.entries(STREAMS))('stream %s', (name, expected) => {
    const raw = readCapture(`${name}.chunks.txt`);
    const sse = captureToSse(raw);
    const whole = decodeStream([sse]);

    it("decodes into a well-formed event sequence with the provider's content", () => {
      expect(streamContractViolations(whole)).toEqual([]);
      const { response, finish, errors } = accumulateIrEvents(whole);
      expect(errors).toEqual([]);
      const ref = referenceFromLines(raw);
      expect(response.parts.map((part) => part.type)).toEqual(expected.parts);
      const text = response.parts
        .filter((part) => part.type === 'text')
        .map((part) => part.text)
        .join('');
      const reasoning = response.parts
        .filter((part) => part.type === 'reasoning')
        .map((part) => part.text)
        .join('');
      expect(text).toBe(ref.text);
      expect(reasoning).toBe(ref.reasoning);
      const calls = response.parts.flatMap((part) =>
        part.type === 'tool_call' ? [{ id: part.id, name: part.name, args: part.argumentsJson }] : [],
      );
      expect(calls).toEqual(ref.calls);
      expect(finish).toEqual({ unified: expected.finish, raw: expected.raw });
      expect(ref.finish).toBe(expected.raw);
      expect(response.usage).toEqual(expected.usage);
    });

    it('gives the same events however the bytes are split', () => {
      for (const seed of [1, 7, 42, 1234]) {
        expect(decodeStream(splitAtRandomOffsets(sse, seed, 1 + (seed % 50) * 7))).toEqual(whole);
      }
      if (sse.length < 20_000) expect(decodeStream([...sse])).toEqual(whole);
    });

    it('is cut short without [DONE]: an error, never a clean finish', () => {
      const cut = sse.slice(0, sse.lastIndexOf('data: [DONE]'));
      const events = decodeStream([cut]);
      expect(events[events.length - 1]?.type).toBe('error');
      const halfway = sse.slice(0, Math.floor(sse.length / 2));
      const partial = decodeStream([halfway]);
      expect(partial[partial.length - 1]?.type).toBe('error');
    });

    it('meters the pass-through stream exactly', () => {
      for (const pieces of [[sse], splitAtRandomOffsets(sse, 99, 13)]) {
        const meter = chatCodec.createPassThroughMeter(true);
        for (const piece of pieces) meter.push(piece);
        expect(meter.end()).toEqual({ usage: expected.usage, finish: { unified: expected.finish, raw: expected.raw }, error: false });
      }
    });
  });

  describe.each(Object.entries(BODIES))('body %s', (name, expected) => {
    const text = readCapture(`${name}.json`);
    const response = chatCodec.upstream.decodeResponse(JSON.parse(text), testContext());

    it('decodes with normalized usage and finish', () => {
      expect(response.parts.map((part) => part.type)).toEqual(expected.parts);
      expect(response.finish.unified).toBe(expected.finish);
      expect(response.usage).toEqual(expected.usage);
      expect(response.id).toBe((JSON.parse(text) as { id: string }).id);
    });

    it('meters the pass-through body exactly', () => {
      const meter = chatCodec.createPassThroughMeter(false);
      for (const piece of splitAtRandomOffsets(text, 5, 9)) meter.push(piece);
      expect(meter.end()).toEqual({ usage: expected.usage, finish: response.finish, error: false });
    });

    it('agrees with its streamed twin', () => {
      // The twins were recorded from separate live calls, so wording and token counts differ; what
      // must agree is the shape of the answer: part kinds, tool names and arguments, finish.
      const streamed = accumulateIrEvents(decodeStream([captureToSse(readCapture(`${name}.chunks.txt`))])).response;
      expect(streamed.parts.map((part) => part.type)).toEqual(response.parts.map((part) => part.type));
      const calls = (parts: typeof response.parts) =>
        parts.flatMap((part) =>
          part.type === 'tool_call' ? [{ name: part.name, args: JSON.parse(part.argumentsJson || '{}') as unknown }] : [],
        );
      expect(calls(streamed.parts)).toEqual(calls(response.parts));
      expect(streamed.finish.unified).toBe(response.finish.unified);
      for (const figures of [streamed.usage, response.usage]) {
        expect(figures.inputTokens + figures.cacheReadTokens).toBeGreaterThan(0);
        expect(figures.outputTokens).toBeGreaterThanOrEqual(figures.reasoningTokens);
      }
      expect(streamed.usage.reasoningTokens > 0).toBe(response.usage.reasoningTokens > 0);
    });
  });
});
