/**
 * Issue 9, replay suite: every recorded provider answer in `../shared/captures` (Messages,
 * Responses, Chat Completions, Generate-Content; streams and complete bodies) is decoded by our
 * upstream decoder of its protocol, compared with its non-streamed twin where one exists, then
 * re-encoded into each of the four client protocols, streamed and not, and parsed by that
 * protocol's official SDK (test/support/capture-sdk-view.ts), which must yield the same content,
 * tool calls, stop and usage totals as the capture. Native pass-through is in pass-through.test.ts,
 * error captures in error-captures.test.ts.
 */
import type { UnifiedFinishReason } from '../../src/ir/finish-reason';
import { PROTOCOLS, type Protocol } from '../../src/ir/protocol';
import type { IrResponse } from '../../src/ir/response';
import type { IrStreamEvent } from '../../src/ir/stream-event';
import { CODECS } from '../../src/relay/codec-registry';
import { foldStream, rawTotals, responseFacts, responseToEvents, type AnswerFacts, type Totals } from '../support/capture-facts';
import {
  allCaptureFiles,
  bodyCaptures,
  capturesPresent,
  streamCaptures,
  type BodyCapture,
  type StreamCapture,
} from '../support/capture-files';
import { replayThroughSdk } from '../support/capture-sdk-view';
import { decodeContext, seededRandom, splitBytesRandomly } from '../support/sdk-responses';

/** Covered by error-captures.test.ts: they are errors, not answers. */
const ERROR_CAPTURES = [
  'responses/openai-error.1.chunks.txt',
  'responses/openai-error.1.json',
  'generate-content/google-429-retry-info.json',
];

/**
 * The tools the recorded request declared, where the answer depends on them: the Responses
 * `parallel` wrapper (`multi_tool_use.parallel`) is expanded into its calls only for declared tools.
 */
const DECLARED_TOOLS: Record<string, Record<string, string>> = {
  'parallel-tool-call-wrapper.1': { weather: 'weather', cityAttractions: 'cityAttractions' },
};

type Facet = 'text' | 'refusal' | 'reasoning' | 'toolCalls' | 'toolNames' | 'finish' | 'input' | 'output' | 'kinds' | 'opaque';
const FACETS: readonly Facet[] = ['text', 'refusal', 'reasoning', 'toolCalls', 'toolNames', 'finish', 'input', 'output', 'kinds', 'opaque'];

/**
 * A stream and its `.json` twin are the same answer only when they were recorded from one call;
 * most were recorded from two live calls of the same request, so wording, token counts and
 * sometimes the whole course of the answer differ. Per twin: the facets that are NOT shared, and
 * why. Everything else must be equal.
 */
const TWIN_EXCEPTIONS: Record<string, { unshared: Facet[]; reason: string }> = {
  'messages/anthropic-clear-thinking.1': {
    unshared: ['reasoning', 'output'],
    reason: 'two generations: the thinking is worded differently (53 vs 33 output tokens); the answer text is the same',
  },
  'messages/anthropic-json-tool.1': {
    unshared: ['toolCalls', 'input', 'output'],
    reason: 'different prompts (one city vs four, 849 vs 1151 input tokens): same forced `json` tool, other arguments',
  },
  'messages/anthropic-text': {
    unshared: ['text', 'output'],
    reason: 'two generations of the same greeting ("thank you for asking" vs "thanks for asking")',
  },
  'messages/anthropic-tool-no-args': {
    unshared: ['text', 'input', 'output'],
    reason: "different prompts (565 vs 602 input tokens); the body's text is a <thinking> preamble; same argument-less call",
  },
  'messages/anthropic-web-search-tool.1': {
    unshared: ['text', 'input', 'output', 'kinds'],
    reason: 'two runs: the body searched twice (two server_tool_use / result rounds), the stream once; other text and counts',
  },
  'responses/azure-text.1': { unshared: ['text'], reason: 'two generations: "Hello" vs "Word", same 11/11 tokens' },
  'responses/openai-reasoning-encrypted-content.1': {
    unshared: ['text', 'reasoning', 'toolCalls', 'toolNames', 'finish', 'input', 'output', 'kinds'],
    reason:
      'the chunks file is a four-step streamed tool loop; the body is one separate non-streamed run that reasoned and answered at once: ' +
      'only the encrypted reasoning is common',
  },
  'responses/openai-web-search-tool.1': {
    unshared: ['text', 'input', 'output', 'kinds', 'opaque'],
    reason: 'two runs of the search: six searches streamed, three in the body',
  },
  'chat/deepseek-reasoning': {
    unshared: ['text', 'reasoning', 'output'],
    reason: 'two generations: other reasoning and wording (219 vs 345 output tokens)',
  },
  'chat/deepseek-tool-call': {
    unshared: ['reasoning', 'output'],
    reason: 'two generations: other reasoning (83 vs 92 output tokens), the same call',
  },
  'chat/groq-tool-call': { unshared: ['input'], reason: "the body's request counted 8 more prompt tokens (218 vs 210)" },
  'chat/openai-text': { unshared: ['text', 'output'], reason: 'two generations of an invented holiday ("Harmony Day" vs "Galaxy Day")' },
  'chat/xai-tool-call': {
    unshared: ['reasoning', 'output'],
    reason: 'two generations: other reasoning (222 vs 215 output tokens), the same call',
  },
  'generate-content/google-text': { unshared: ['text', 'output'], reason: 'two generations of the strawberry answer' },
  'generate-content/google-reasoning': { unshared: ['text', 'output'], reason: 'two generations of the strawberry answer' },
  'generate-content/google-reasoning-gemini3': { unshared: ['text', 'output'], reason: 'two generations of the strawberry answer' },
  'generate-content/google-tool-call': {
    unshared: ['output'],
    reason: 'two generations: the same call, other thinking token counts (60 vs 908)',
  },
  'generate-content/google-tool-call-gemini3': {
    unshared: ['output'],
    reason: 'two generations: the same call, other thinking token counts (819 vs 1816)',
  },
};

function facet(facts: AnswerFacts, name: Facet): unknown {
  switch (name) {
    case 'toolNames':
      return facts.toolCalls.map((call) => call.name);
    case 'input':
      return facts.totals.input;
    case 'output':
      return facts.totals.output;
    default:
      return facts[name];
  }
}

/** The stop value each client protocol shows for a canonical finish (PROTOCOLS.md section 3). */
const CLIENT_STOPS: Record<Protocol, Partial<Record<UnifiedFinishReason, string>>> = {
  messages: {
    stop: 'end_turn',
    stop_sequence: 'stop_sequence',
    length: 'max_tokens',
    tool_calls: 'tool_use',
    content_filter: 'refusal',
    pause: 'pause_turn',
  },
  chat: { stop: 'stop', stop_sequence: 'stop', length: 'length', tool_calls: 'tool_calls', content_filter: 'content_filter' },
  responses: {
    stop: 'completed',
    stop_sequence: 'completed',
    length: 'incomplete:max_output_tokens',
    tool_calls: 'completed',
    content_filter: 'incomplete:content_filter',
  },
  'generate-content': { stop: 'STOP', stop_sequence: 'STOP', length: 'MAX_TOKENS', tool_calls: 'STOP', content_filter: 'SAFETY' },
};

/** Messages and Generate-Content have no refusal field: the refusal's explanation is the visible text. */
const REFUSAL_IS_TEXT: Record<Protocol, boolean> = { messages: true, 'generate-content': true, chat: false, responses: false };

interface DecodedCapture {
  response: IrResponse;
  events: IrStreamEvent[];
  facts: AnswerFacts;
  /** What the provider itself reported. */
  totals: Totals;
}

function decodeStreamCapture(
  capture: StreamCapture,
  pieces: readonly string[] = [capture.sse],
): DecodedCapture & { error?: Error; finished: boolean } {
  const decoder = CODECS[capture.protocol].upstream.createStreamDecoder(decodeContext(DECLARED_TOOLS[capture.name]));
  const events = [...pieces.flatMap((piece) => decoder.push(piece)), ...decoder.end()];
  const folded = foldStream(events);
  return {
    response: folded.response,
    events,
    facts: responseFacts(folded.response),
    totals: rawTotals(
      capture.protocol,
      capture.lines.map((line) => JSON.parse(line) as unknown),
    ),
    finished: folded.finished,
    ...(folded.error ? { error: folded.error } : {}),
  };
}

function decodeBodyCapture(capture: BodyCapture): DecodedCapture {
  const response = CODECS[capture.protocol].upstream.decodeResponse(capture.body, decodeContext(DECLARED_TOOLS[capture.name]));
  return {
    response,
    events: responseToEvents(response),
    facts: responseFacts(response),
    totals: rawTotals(capture.protocol, [capture.body]),
  };
}

/** The response object inside a Responses stream's terminal event: the same call's complete answer. */
function terminalResponse(capture: StreamCapture): unknown {
  const last = JSON.parse(capture.lines[capture.lines.length - 1]) as { type?: string; response?: { output?: unknown[] } };
  return last.type === 'response.completed' && (last.response?.output?.length ?? 0) > 0 ? last.response : undefined;
}

const CLIENTS: Array<[Protocol, boolean]> = PROTOCOLS.flatMap((protocol): Array<[Protocol, boolean]> => [
  [protocol, false],
  [protocol, true],
]);

async function expectClientSeesCapture(client: Protocol, stream: boolean, decoded: DecodedCapture): Promise<void> {
  const { view, wire } = await replayThroughSdk(client, decoded, stream);
  const facts = decoded.facts;
  const finish = facts.finish ?? 'other';
  const expected = {
    text: REFUSAL_IS_TEXT[client] ? facts.visible : facts.text,
    refusal: REFUSAL_IS_TEXT[client] ? '' : facts.refusal,
    reasoning: facts.reasoning,
    toolCalls: facts.toolCalls,
    stop: CLIENT_STOPS[client][finish] ?? `(no ${client} stop for ${finish})`,
    totals: decoded.totals,
  };
  const seen = {
    text: view.text,
    refusal: view.refusal,
    reasoning: view.reasoning,
    toolCalls: view.toolCalls,
    stop: view.stop,
    totals: view.totals,
  };
  if (JSON.stringify(seen) !== JSON.stringify(expected)) {
    // The wire our encoder produced, to locate the fault at once.
    expect({ ...seen, wire: wire.slice(0, 4000) }).toEqual({ ...expected, wire: wire.slice(0, 4000) });
  }
}

if (!capturesPresent('capture replay suite')) {
  describe.skip('capture replay (../shared/captures absent)', () => {
    it('needs the captures', () => undefined);
  });
} else {
  const streams = PROTOCOLS.flatMap((protocol) => streamCaptures(protocol)).filter((capture) => !ERROR_CAPTURES.includes(capture.label));
  const bodies = PROTOCOLS.flatMap((protocol) => bodyCaptures(protocol)).filter((capture) => !ERROR_CAPTURES.includes(capture.label));

  describe('capture replay', () => {
    it('covers every capture file of the four protocol folders', () => {
      const covered = new Set([
        ...streams.map((capture) => capture.label.replace(/#\d+$/, '')),
        ...bodies.map((capture) => capture.label),
        ...ERROR_CAPTURES,
      ]);
      const files = allCaptureFiles(PROTOCOLS);
      expect(files.filter((file) => !covered.has(file))).toEqual([]);
      expect(files.length).toBeGreaterThanOrEqual(50);
    });

    it('documents only twins that exist', () => {
      const names = new Set(bodies.map((capture) => `${capture.protocol}/${capture.name}`));
      expect(Object.keys(TWIN_EXCEPTIONS).filter((name) => !names.has(name))).toEqual([]);
    });

    describe.each(streams.map((capture) => [capture.label, capture] as const))('stream %s', (_label, capture) => {
      it("decodes into a well-formed answer with a finish and the provider's usage totals", () => {
        const decoded = decodeStreamCapture(capture);
        expect(decoded.error).toBeUndefined();
        expect(decoded.finished).toBe(true);
        expect(decoded.facts.totals).toEqual(decoded.totals);
        expect(decoded.totals.input).toBeGreaterThan(0);
        expect(decoded.totals.output).toBeGreaterThan(0);
        expect(decoded.response.parts.length).toBeGreaterThan(0);
      });

      it('decodes the same when the bytes arrive split anywhere', () => {
        const whole = decodeStreamCapture(capture);
        const split = decodeStreamCapture(capture, splitBytesRandomly(capture.sse, seededRandom(capture.label.length), 23));
        expect(split.events).toEqual(whole.events);
      });

      const body = bodies.find((candidate) => candidate.protocol === capture.protocol && candidate.name === capture.name);
      if (body !== undefined && capture.position === 0) {
        it(`agrees with its non-streamed twin ${body.label} on what they share`, () => {
          const streamed = decodeStreamCapture(capture).facts;
          const whole = decodeBodyCapture(body).facts;
          const exception = TWIN_EXCEPTIONS[`${capture.protocol}/${capture.name}`];
          const shared = FACETS.filter((name) => !(exception?.unshared ?? []).includes(name));
          expect(shared.length).toBeGreaterThan(0);
          expect(Object.fromEntries(shared.map((name) => [name, facet(streamed, name)]))).toEqual(
            Object.fromEntries(shared.map((name) => [name, facet(whole, name)])),
          );
        });
      }

      const terminal = capture.protocol === 'responses' ? terminalResponse(capture) : undefined;
      if (terminal !== undefined) {
        it('agrees exactly with the complete response its terminal event carries (the same call)', () => {
          const streamed = decodeStreamCapture(capture).facts;
          const whole = responseFacts(CODECS.responses.upstream.decodeResponse(terminal, decodeContext(DECLARED_TOOLS[capture.name])));
          expect(streamed).toEqual(whole);
        });
      }

      it.each(CLIENTS)('reaches a %s client (streamed: %s) through the official SDK unchanged', async (client, stream) => {
        await expectClientSeesCapture(client, stream, decodeStreamCapture(capture));
      });
    });

    describe.each(bodies.map((capture) => [capture.label, capture] as const))('body %s', (_label, capture) => {
      it("decodes with the provider's usage totals", () => {
        const decoded = decodeBodyCapture(capture);
        expect(decoded.facts.totals).toEqual(decoded.totals);
        expect(decoded.totals.input).toBeGreaterThan(0);
        expect(decoded.totals.output).toBeGreaterThan(0);
        expect(decoded.response.parts.length).toBeGreaterThan(0);
        expect(decoded.facts.finish).not.toBe('error');
      });

      it.each(CLIENTS)('reaches a %s client (streamed: %s) through the official SDK unchanged', async (client, stream) => {
        await expectClientSeesCapture(client, stream, decodeBodyCapture(capture));
      });
    });
  });
}
