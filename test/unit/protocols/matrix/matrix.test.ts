/**
 * The cross-protocol matrix (issue 4): every (client protocol, upstream protocol) pair runs every
 * scenario end to end without the gateway — the client's official SDK builds the request, the
 * codecs translate it, the strict in-process simulator answers, the codecs translate back and the
 * SDK parses the answer (its own stream accumulator when streamed). Each scenario runs streamed and
 * not; both must show the expected content, and the same content.
 */
import { startSimulator, type Simulator } from '../../../../scripts/provider-sim/server';
import type { ContentPart } from '../../../../src/ir/parts';
import { PROTOCOLS, type Protocol } from '../../../../src/ir/protocol';
import type { IrResponse } from '../../../../src/ir/response';
import { totalInputTokens, type Usage } from '../../../../src/ir/usage';
import { describeTrace, pipelineFetch, type PipelineTrace } from '../../../support/codec-harness';
import { collectIrStream, seededRandom } from '../../../support/sdk-responses';
import { checkClientStream } from '../conformance/client-stream-rules';
import { createConversation, type ClientView } from './client-conversation';
import { IMAGE_URL, PNG_BASE64, SCENARIOS, URL_IMAGE, type Pair, type ScenarioRun } from './matrix-scenarios';
import { expectedUsageOfBody } from './wire';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
});
afterAll(async () => {
  await sim.close();
});

const PAIRS: Array<[Protocol, Protocol]> = PROTOCOLS.flatMap((inbound) =>
  PROTOCOLS.map((upstream): [Protocol, Protocol] => [inbound, upstream]),
);

/** The relay downloads the URL; here the "download" is the test image. */
function inlineUrl(url: string): { mediaType: string; data: string } | undefined {
  return url === IMAGE_URL ? { mediaType: 'image/png', data: PNG_BASE64 } : undefined;
}

/** The answer a trace's upstream decoder produced, folded from events when streamed. */
function upstreamAnswer(trace: PipelineTrace): Pick<IrResponse, 'parts' | 'finish' | 'usage'> {
  if (trace.irResponse) return trace.irResponse;
  if (!trace.irEvents) throw new Error('the upstream answer was never decoded');
  const folded = collectIrStream(trace.irEvents);
  if (folded.error) throw folded.error;
  if (!folded.finish || !folded.usage) throw new Error('the decoded stream has no finish or no usage');
  return { parts: folded.parts, finish: folded.finish, usage: folded.usage };
}

/**
 * What an answer means, without the values that differ between two answers to the same question
 * (ids) and without block boundaries (a stream may split a text where an opaque value arrives; the
 * conformance suite checks block structure).
 */
function meaning(parts: readonly ContentPart[]): unknown {
  return {
    text: parts.map((part) => (part.type === 'text' ? part.text : '')).join(''),
    reasoning: parts.map((part) => (part.type === 'reasoning' ? part.text : '')).join(''),
    opaque: parts
      .flatMap((part) =>
        part.type === 'reasoning' ? [part.signature, part.redacted, part.encrypted] : part.type === 'tool_call' ? [part.signature] : [],
      )
      .filter((value) => value !== undefined)
      .map((value) => `${value.origin}:${value.value}`)
      .sort(),
    toolCalls: parts.flatMap((part) =>
      part.type === 'tool_call'
        ? [{ name: part.name, arguments: JSON.parse(part.argumentsJson === '' ? '{}' : part.argumentsJson) as unknown }]
        : [],
    ),
    other: parts.filter((part) => part.type !== 'text' && part.type !== 'reasoning' && part.type !== 'tool_call'),
  };
}

function comparableView(view: ClientView): unknown {
  return { ...view, toolCalls: view.toolCalls.map((call) => ({ name: call.name, args: call.args })) };
}

/** Usage: the upstream's raw figures → IR by the section 3 formulas → the client's own fields. */
function checkUsage(run: ScenarioRun, pair: Pair): void {
  run.traces.forEach((trace, index) => {
    const usage: Usage = upstreamAnswer(trace).usage;
    if (!run.stream) expect(usage).toEqual(expectedUsageOfBody(pair.upstream, JSON.parse(trace.simText ?? '{}')));
    const view = run.views[index]!;
    expect(view.usage.input).toBe(totalInputTokens(usage));
    expect(view.usage.cached).toBe(usage.cacheReadTokens);
    expect(view.usage.output).toBe(usage.outputTokens);
    expect(view.usage.output).toBeGreaterThan(0);
    // Messages clients have no field for reasoning tokens (they are inside output_tokens).
    if (pair.inbound !== 'messages') expect(view.usage.reasoning).toBe(usage.reasoningTokens);
  });
}

describe.each(PAIRS)('%s client → %s upstream', (inbound, upstream) => {
  const pair: Pair = { inbound, upstream };
  for (const scenario of SCENARIOS) {
    const reason = scenario.skip?.(pair);
    if (reason !== undefined) {
      it.skip(`${scenario.name} — skipped: ${reason}`, () => undefined);
      continue;
    }
    it(scenario.name, async () => {
      const runs: ScenarioRun[] = [];
      for (const stream of [false, true]) {
        const traces: PipelineTrace[] = [];
        const fetch = pipelineFetch({
          inbound,
          upstream,
          sim,
          traces,
          random: seededRandom(runs.length + 7),
          inlineUrl: scenario.inlineUrls ? inlineUrl : undefined,
        });
        const variant = `${inbound}/${upstream}/${stream ? 's' : 'n'}`;
        let run: ScenarioRun;
        try {
          run = { views: await scenario.run(() => createConversation(inbound, fetch, stream), variant), traces, stream };
        } catch (error) {
          throw new Error(`${String(error)}\n${describeTrace(traces[traces.length - 1])}`);
        }
        try {
          scenario.check(run, pair);
          checkUsage(run, pair);
          // The raw client stream keeps the protocol's event rules (what every SDK relies on).
          if (stream)
            for (const trace of traces)
              checkClientStream(inbound, trace.clientFrames ?? [], { includeUsage: trace.decodedRequest?.includeUsage === true });
        } catch (error) {
          const failed =
            traces.find((trace) => trace.failure !== undefined || (trace.simStatus ?? 200) >= 400) ?? traces[traces.length - 1];
          if (error instanceof Error) error.message += `\n--- ${stream ? 'streamed' : 'not streamed'}; ${describeTrace(failed)}`;
          throw error;
        }
        runs.push(run);
      }
      const [whole, streamed] = runs as [ScenarioRun, ScenarioRun];
      // The SDK's stream accumulator parses to what the SDK parsed from the whole body…
      expect(streamed.views.map(comparableView)).toEqual(whole.views.map(comparableView));
      // …and the upstream stream decoder folds to what the body decoder produced.
      whole.traces.forEach((trace, index) => {
        const a = upstreamAnswer(trace);
        const b = upstreamAnswer(streamed.traces[index]!);
        expect({ parts: meaning(b.parts), finish: b.finish, usage: b.usage }).toEqual({
          parts: meaning(a.parts),
          finish: a.finish,
          usage: a.usage,
        });
      });
    });
  }
});

describe('a Generate-Content upstream given an image URL the relay did not inline', () => {
  for (const inbound of PROTOCOLS) {
    if (inbound === 'generate-content') {
      it.skip(`${inbound} client — skipped: a Generate-Content client's fileData URI is a file reference that goes back to Generate-Content as it came`, () =>
        undefined);
      continue;
    }
    it(`${inbound} client: the encoder reports and drops the URL it cannot take, and the request is still served`, async () => {
      const traces: PipelineTrace[] = [];
      const conversation = createConversation(
        inbound,
        pipelineFetch({ inbound, upstream: 'generate-content', sim, traces, random: seededRandom(3) }),
        false,
      );
      conversation.user('Describe this picture', [URL_IMAGE]);
      const view = await conversation.send();
      const trace = traces[0]!;
      expect(trace.simStatus).toBe(200);
      expect(trace.encoded?.warnings).toEqual([expect.objectContaining({ message: expect.stringContaining('URL') })]);
      expect(JSON.stringify(trace.encoded?.body)).not.toContain(IMAGE_URL);
      expect(view.text).toBe('Echo: Describe this picture');
    });
  }
});
