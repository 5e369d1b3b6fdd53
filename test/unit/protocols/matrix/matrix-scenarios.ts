/**
 * The scenarios of the 4 × 4 matrix (issue 4): each drives a client conversation through its
 * official SDK and states what the IR, the upstream wire request and the client must show. The
 * simulator answers deterministically (README of scripts/provider-sim): `Echo: <last user text>`,
 * ` [N image(s): <types>]` for images, tool calls for tools the user text names, `Tool result: <text>`
 * quoting results, a minimal schema instance for JSON output, cut at stop sequences and max tokens.
 */
import { encodePng } from '../../../../scripts/provider-sim/images/png';
import type { ContentPart } from '../../../../src/ir/parts';
import type { Protocol } from '../../../../src/ir/protocol';
import { unwrapOpaque } from '../../../../src/protocols/shared/wrap-opaque';
import { SKIP_THOUGHT_SIGNATURE } from '../../../../src/protocols/generate-content';
import type { PipelineTrace } from '../../../support/codec-harness';
import type { ClientConversation, ClientView, ImageInput, ToolSpec } from './client-conversation';
import { asArray, clientFinish, dig, upstreamSystemText, upstreamTurns } from './wire';

export interface Pair {
  inbound: Protocol;
  upstream: Protocol;
}

export interface ScenarioRun {
  views: ClientView[];
  traces: PipelineTrace[];
  stream: boolean;
}

export interface Scenario {
  name: string;
  /** Why the client protocol cannot express this scenario, when it cannot. */
  skip?(pair: Pair): string | undefined;
  /** The relay inlines URL images for a Generate-Content upstream; scenarios that need it say so. */
  inlineUrls?: boolean;
  /** `variant` differs between the streamed and non-streamed runs (keeps prompt caches apart). */
  run(open: () => ClientConversation, variant: string): Promise<ClientView[]>;
  check(run: ScenarioRun, pair: Pair): void;
}

export const PNG_BASE64 = encodePng(2, 2, [40, 120, 200]).toString('base64');
export const PNG_IMAGE: ImageInput = { kind: 'base64', mediaType: 'image/png', data: PNG_BASE64 };
export const IMAGE_URL = 'https://images.example.com/cat.png';
export const URL_IMAGE: ImageInput = { kind: 'url', url: IMAGE_URL, mediaType: 'image/png' };

export const WEATHER: ToolSpec = {
  name: 'get_weather',
  description: 'Weather for a city',
  schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
export const TIME: ToolSpec = {
  name: 'get_time',
  description: 'Local time in a time zone',
  schema: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
};

function body(trace: PipelineTrace | undefined): Record<string, unknown> {
  if (trace?.encoded === undefined) throw new Error('the request never reached the upstream encoder');
  return trace.encoded.body;
}

function userParts(trace: PipelineTrace): ContentPart[] {
  return (trace.decodedRequest?.turns ?? []).filter((turn) => turn.role === 'user').flatMap((turn) => turn.parts);
}

function allParts(parts: readonly ContentPart[]): ContentPart[] {
  return parts.flatMap((part): ContentPart[] => (part.type === 'tool_result' ? [part, ...part.content] : [part]));
}

function expectAccepted(run: ScenarioRun): void {
  for (const trace of run.traces) {
    expect({ failure: trace.failure?.message, simStatus: trace.simStatus }).toEqual({ failure: undefined, simStatus: 200 });
  }
}

const text: Scenario = {
  name: 'text',
  async run(open) {
    const conversation = open();
    conversation.user('Hello there');
    return [await conversation.send()];
  },
  check(run, pair) {
    expectAccepted(run);
    const [view] = run.views;
    expect(view!.text).toBe('Echo: Hello there');
    expect(view!.finish).toBe(clientFinish(pair.inbound, 'stop'));
    expect(view!.toolCalls).toEqual([]);
    const trace = run.traces[0]!;
    expect(trace.decodedRequest?.turns).toEqual([{ role: 'user', parts: [{ type: 'text', text: 'Hello there' }] }]);
    expect(JSON.stringify(upstreamTurns(pair.upstream, body(trace)))).toContain('Hello there');
  },
};

const SYSTEM = 'You are a terse assistant.';

const multiTurnWithSystem: Scenario = {
  name: 'multi-turn with system',
  async run(open) {
    const conversation = open();
    conversation.system(SYSTEM);
    conversation.user('first question');
    const first = await conversation.send();
    conversation.user('second question');
    return [first, await conversation.send()];
  },
  check(run, pair) {
    expectAccepted(run);
    expect(run.views.map((view) => view.text)).toEqual(['Echo: first question', 'Echo: second question']);
    const second = run.traces[1]!;
    expect(second.decodedRequest?.system.map((part) => part.text)).toEqual([SYSTEM]);
    expect(second.decodedRequest?.turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user']);
    // The answer's text comes back; an opaque carrier (a thought signature) may travel beside it.
    const replayed = second.decodedRequest?.turns[1]?.parts ?? [];
    expect(replayed.filter((part) => part.type !== 'reasoning')).toEqual([{ type: 'text', text: 'Echo: first question' }]);
    expect(replayed.filter((part) => part.type === 'reasoning' && part.text !== '')).toEqual([]);
    expect(upstreamSystemText(pair.upstream, body(second))).toBe(SYSTEM);
    expect(upstreamTurns(pair.upstream, body(second))).toHaveLength(3);
  },
};

const RESULTS = ['sunny in Paris', 'noon in Paris'];

/**
 * How the simulator quotes a tool result a client sent: a Generate-Content client's `{result: …}`
 * crosses as its JSON text, which a Generate-Content upstream gets back as the object (quoted by
 * its one string) and the others as text.
 */
function quotedResult(pair: Pair, result: string): string {
  return pair.inbound === 'generate-content' && pair.upstream !== 'generate-content' ? JSON.stringify({ result }) : result;
}

/** Two tools named in one user text give two calls; their results come back in one user turn. */
function parallelTools(withImage: boolean): Scenario {
  return {
    name: withImage ? 'parallel tool calls, an image in a tool result' : 'parallel tool calls and their results',
    async run(open) {
      const conversation = open();
      conversation.user('Please call get_weather and get_time for Paris');
      const calls = await conversation.send({ tools: [WEATHER, TIME] });
      conversation.toolResults([{ text: RESULTS[0]!, ...(withImage ? { image: PNG_IMAGE } : {}) }, { text: RESULTS[1]! }]);
      return [calls, await conversation.send({ tools: [WEATHER, TIME] })];
    },
    check(run, pair) {
      expectAccepted(run);
      const [calls, answer] = run.views;
      expect(calls!.toolCalls.map((call) => ({ name: call.name, args: call.args }))).toEqual([
        { name: 'get_weather', args: { city: 'example' } },
        { name: 'get_time', args: { zone: 'example' } },
      ]);
      expect(calls!.finish).toBe(clientFinish(pair.inbound, 'tool_calls'));
      expect(new Set(calls!.toolCalls.map((call) => call.id)).size).toBe(2);
      const first = run.traces[0]!;
      const irCalls = run.stream ? undefined : first.irResponse?.parts.filter((part) => part.type === 'tool_call');
      if (irCalls) expect(irCalls.map((part) => part.type === 'tool_call' && part.name)).toEqual(['get_weather', 'get_time']);

      // The results are paired with their calls by id, whatever the client protocol's shape.
      const second = run.traces[1]!;
      const request = second.decodedRequest!;
      const assistant = request.turns.find((turn) => turn.role === 'assistant')!;
      const callIds = assistant.parts.flatMap((part) => (part.type === 'tool_call' ? [part.id] : []));
      const results = userParts(second).flatMap((part) => (part.type === 'tool_result' ? [part] : []));
      expect(results.map((result) => result.callId)).toEqual(callIds);
      // A Generate-Content client answers with an object (`{result: …}`), which crosses as its JSON.
      const sent = RESULTS.map((result) => (pair.inbound === 'generate-content' ? JSON.stringify({ result }) : result));
      expect(results.map((result) => result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(''))).toEqual(sent);
      const quoted = RESULTS.map((result) => quotedResult(pair, result));

      if (!withImage) {
        expect(answer!.text).toBe(`Tool result: ${quoted[0]}\nTool result: ${quoted[1]}`);
      } else {
        // The image crosses to the upstream, inside the result or right after the results.
        const images = allParts(userParts(second)).filter((part) => part.type === 'image');
        expect(images).toHaveLength(1);
        expect(JSON.stringify(body(second))).toContain(PNG_BASE64);
        // Where the image travels as a user message after the results (Chat tool messages are text
        // only), the simulator answers that message; elsewhere it quotes the results.
        // (A Generate-Content client's image is a part beside the responses, not inside one.)
        const imageAlone =
          pair.upstream === 'chat' || (pair.upstream === 'responses' && (pair.inbound === 'chat' || pair.inbound === 'generate-content'));
        if (imageAlone) expect(answer!.text).toBe('Echo:  [1 image: image/png]');
        else expect(answer!.text).toBe(`Tool result: ${quoted[0]}\nTool result: ${quoted[1]}`);
      }
      expect(answer!.finish).toBe(clientFinish(pair.inbound, 'stop'));
    },
  };
}

function vision(image: ImageInput): Scenario {
  const byUrl = image.kind === 'url';
  return {
    name: byUrl ? 'vision by URL' : 'vision by base64',
    inlineUrls: byUrl,
    async run(open) {
      const conversation = open();
      conversation.user('Describe this picture', [image]);
      return [await conversation.send()];
    },
    check(run, pair) {
      expectAccepted(run);
      expect(run.views[0]!.text).toBe('Echo: Describe this picture [1 image: image/png]');
      const trace = run.traces[0]!;
      const images = userParts(trace).filter((part) => part.type === 'image');
      expect(images).toHaveLength(1);
      const source = images[0]!.type === 'image' ? images[0]!.source : undefined;
      if (byUrl) {
        expect(source?.kind === 'url' ? source.url : source?.kind === 'file' ? source.uri : undefined).toBe(IMAGE_URL);
        const upstreamBody = JSON.stringify(body(trace));
        // The relay inlines http(s) URL sources for Generate-Content; a Generate-Content client's own
        // `fileData` URI is a file reference and goes back to Generate-Content as it came.
        if (pair.upstream === 'generate-content' && pair.inbound !== 'generate-content') {
          expect(upstreamBody).toContain(PNG_BASE64);
          expect(upstreamBody).not.toContain(IMAGE_URL);
        } else {
          expect(upstreamBody).toContain(IMAGE_URL);
        }
      } else {
        expect(source).toEqual({ kind: 'base64', mediaType: 'image/png', data: PNG_BASE64 });
        expect(JSON.stringify(body(trace))).toContain(PNG_BASE64);
      }
    },
  };
}

/** The reasoning blob (signature, encrypted content, thought signature) each upstream needs replayed. */
function replayedReasoning(upstream: Protocol, request: Record<string, unknown>): string[] {
  const turns = upstreamTurns(upstream, request);
  switch (upstream) {
    case 'messages':
      return turns
        .flatMap((message) => asArray(dig(message, 'content')))
        .filter((block) => dig(block, 'type') === 'thinking')
        .map((block) => String(dig(block, 'signature')));
    case 'responses':
      return turns.filter((item) => dig(item, 'type') === 'reasoning').map((item) => String(dig(item, 'encrypted_content')));
    case 'chat':
      return turns
        .filter((message) => typeof dig(message, 'reasoning_content') === 'string')
        .map((message) => String(dig(message, 'reasoning_content')));
    case 'generate-content':
      return turns
        .flatMap((content) => asArray(dig(content, 'parts')))
        .filter((part) => dig(part, 'functionCall') !== undefined && dig(part, 'thoughtSignature') !== undefined)
        .map((part) => String(dig(part, 'thoughtSignature')));
  }
}

const reasoningRoundTrip: Scenario = {
  name: 'reasoning round trip across turns',
  async run(open) {
    const conversation = open();
    conversation.user('Please call get_weather for Paris');
    const call = await conversation.send({ tools: [WEATHER], reasoning: true });
    conversation.toolResults([{ text: 'sunny' }]);
    return [call, await conversation.send({ tools: [WEATHER], reasoning: true })];
  },
  check(run, pair) {
    // The simulator is strict like the real APIs: a lost or foreign signature, a reasoning item
    // replayed by id with `store:false`, or a Gemini 3 call without its signature is a 400.
    expectAccepted(run);
    const [call, answer] = run.views;
    expect(call!.toolCalls.map((entry) => entry.name)).toEqual(['get_weather']);
    expect(answer!.text).toBe(`Tool result: ${quotedResult(pair, 'sunny')}`);
    expect(call!.reasoning).toContain('The user wrote');
    expect(call!.usage.output).toBeGreaterThan(0);
    // A Messages upstream counts thinking inside output_tokens and never breaks it out: the gateway
    // reports 0 reasoning tokens rather than invent an estimate.
    if (pair.upstream === 'messages') expect(call!.usage.reasoning).toBe(0);
    else if (pair.inbound !== 'messages') expect(call!.usage.reasoning).toBeGreaterThan(0);

    const first = run.traces[0]!;
    const second = run.traces[1]!;
    expect(first.decodedRequest?.reasoning).toBeDefined();
    // Whatever the client protocol, the upstream's own blob comes back to it on the next turn.
    const replayed = replayedReasoning(pair.upstream, body(second));
    expect(replayed.length).toBeGreaterThan(0);
    if (pair.upstream === 'generate-content') expect(replayed[0]).not.toBe(SKIP_THOUGHT_SIGNATURE);
    // Never a blob of another family, and never a gateway wrapper, on the upstream wire.
    for (const blob of replayed) expect(unwrapOpaque(blob)).toBeUndefined();
  },
};

const JSON_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, temperature: { type: 'number' } },
  required: ['city', 'temperature'],
  additionalProperties: false,
};

const structuredOutput: Scenario = {
  name: 'structured output',
  async run(open) {
    const conversation = open();
    conversation.user('Weather in Paris, as json');
    return [await conversation.send({ json: { name: 'weather', schema: JSON_SCHEMA } })];
  },
  check(run, pair) {
    expectAccepted(run);
    const [view] = run.views;
    expect(JSON.parse(view!.text)).toEqual({ city: 'example', temperature: 1 });
    expect(view!.finish).toBe(clientFinish(pair.inbound, 'stop'));
    expect(view!.toolCalls).toEqual([]);
    const trace = run.traces[0]!;
    expect(trace.decodedRequest?.responseFormat).toMatchObject({ type: 'json_schema', schema: JSON_SCHEMA });
    const upstreamBody = body(trace);
    switch (pair.upstream) {
      case 'messages':
        // No native structured output on this target: a forced tool whose input becomes the text.
        expect(dig(upstreamBody, 'tool_choice', 'type')).toBe('tool');
        expect(trace.encoded?.jsonToolName).toBe(dig(upstreamBody, 'tool_choice', 'name'));
        break;
      case 'chat':
        expect(dig(upstreamBody, 'response_format', 'type')).toBe('json_schema');
        break;
      case 'responses':
        expect(dig(upstreamBody, 'text', 'format', 'type')).toBe('json_schema');
        break;
      case 'generate-content':
        expect(dig(upstreamBody, 'generationConfig', 'responseMimeType')).toBe('application/json');
        expect(JSON.stringify(dig(upstreamBody, 'generationConfig'))).not.toContain('additionalProperties');
        break;
    }
  },
};

const stopSequence: Scenario = {
  name: 'stop sequence',
  skip: ({ inbound }) => (inbound === 'responses' ? 'the Responses API has no stop-sequence parameter' : undefined),
  async run(open) {
    const conversation = open();
    conversation.user('alpha beta STOP gamma');
    return [await conversation.send({ stop: ['STOP'] })];
  },
  check(run, pair) {
    expectAccepted(run);
    const [view] = run.views;
    const trace = run.traces[0]!;
    expect(trace.decodedRequest?.sampling.stop).toEqual(['STOP']);
    if (pair.upstream === 'responses') {
      // Cannot cross: reported, and the upstream answers in full.
      expect(trace.encoded?.warnings.map((warning) => warning.field)).toContain('stop');
      expect(view!.text).toBe('Echo: alpha beta STOP gamma');
      expect(view!.finish).toBe(clientFinish(pair.inbound, 'stop'));
      return;
    }
    expect(view!.text).toBe('Echo: alpha beta ');
    // Only Messages says a stop sequence ended the answer; Chat and Generate-Content say `stop`/`STOP`.
    const unified = pair.upstream === 'messages' ? 'stop_sequence' : 'stop';
    expect(view!.finish).toBe(clientFinish(pair.inbound, unified));
    if (!run.stream) expect(trace.irResponse?.finish).toMatchObject({ unified });
    if (pair.upstream === 'messages' && pair.inbound === 'messages' && !run.stream) {
      expect(trace.clientBody).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'STOP' });
    }
  },
};

const LONG_TEXT = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen';

const maxTokens: Scenario = {
  name: 'max tokens',
  async run(open) {
    const conversation = open();
    conversation.user(LONG_TEXT);
    return [await conversation.send({ maxTokens: 16 })];
  },
  check(run, pair) {
    expectAccepted(run);
    const [view] = run.views;
    const trace = run.traces[0]!;
    expect(trace.decodedRequest?.sampling.maxOutputTokens).toBe(16);
    expect(`Echo: ${LONG_TEXT}`.startsWith(view!.text)).toBe(true);
    expect(view!.text.length).toBeLessThan(`Echo: ${LONG_TEXT}`.length);
    expect(view!.finish).toBe(clientFinish(pair.inbound, 'length'));
    if (!run.stream) expect(trace.irResponse?.finish).toMatchObject({ unified: 'length' });
  },
};

/** Over 1,024 tokens: the providers' minimum for prompt caching (and the simulator's). */
function longSystem(variant: string): string {
  return `${variant}: ${'The quick brown fox jumps over the lazy dog. '.repeat(120)}`;
}

const cachedTokens: Scenario = {
  name: 'cached-token usage',
  async run(open, variant) {
    const views: ClientView[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const conversation = open();
      conversation.system(longSystem(variant));
      conversation.user('Hello again');
      views.push(await conversation.send({ cacheSystem: true }));
    }
    return views;
  },
  check(run, pair) {
    expectAccepted(run);
    const [first, second] = run.views;
    expect(second!.text).toBe('Echo: Hello again');
    // Every client view counts input with the cached part included: the same prompt, the same total.
    expect(second!.usage.input).toBe(first!.usage.input);
    expect(first!.usage.input).toBeGreaterThan(1024);
    expect(first!.usage.cached).toBe(0);
    const cacheHintsReach = pair.upstream !== 'messages' || pair.inbound === 'messages';
    if (cacheHintsReach) {
      expect(second!.usage.cached).toBeGreaterThan(1024);
      expect(second!.usage.cached).toBeLessThanOrEqual(second!.usage.input);
    } else {
      // Messages caches only blocks marked `cache_control`, which these clients cannot send.
      expect(second!.usage.cached).toBe(0);
    }
  },
};

export const SCENARIOS: Scenario[] = [
  text,
  multiTurnWithSystem,
  parallelTools(false),
  parallelTools(true),
  vision(PNG_IMAGE),
  vision(URL_IMAGE),
  reasoningRoundTrip,
  structuredOutput,
  stopSequence,
  maxTokens,
  cachedTokens,
];
