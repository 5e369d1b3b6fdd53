/** Faults on demand (header, base-URL prefix, model suffix) and latency knobs, on every protocol. */
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { anthropic, ANTHROPIC_HEADERS, genai, GOOGLE_HEADERS, lastRequest, openai, OPENAI_HEADERS, parseSse, post } from './sim-support';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ videoMs: 0 });
});
afterAll(async () => sim.close());

interface ProtocolCase {
  name: string;
  path: string;
  headers: Record<string, string>;
  body: (stream: boolean) => Record<string, unknown>;
}

const words = 'one two three four five six seven eight nine ten eleven twelve';
const PROTOCOLS: ProtocolCase[] = [
  {
    name: 'messages',
    path: '/v1/messages',
    headers: ANTHROPIC_HEADERS,
    body: (stream) => ({ model: 'claude-haiku-4-5', max_tokens: 100, stream, messages: [{ role: 'user', content: words }] }),
  },
  {
    name: 'chat',
    path: '/v1/chat/completions',
    headers: OPENAI_HEADERS,
    body: (stream) => ({ model: 'gpt-4.1', stream, messages: [{ role: 'user', content: words }] }),
  },
  { name: 'responses', path: '/v1/responses', headers: OPENAI_HEADERS, body: (stream) => ({ model: 'gpt-5', stream, input: words }) },
  {
    name: 'generate-content',
    path: '/v1beta/models/gemini-2.5-flash:generateContent',
    headers: GOOGLE_HEADERS,
    body: () => ({ contents: [{ parts: [{ text: words }] }] }),
  },
];
const streamPath = (protocol: ProtocolCase): string =>
  protocol.name === 'generate-content' ? '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse' : protocol.path;

/** The status and error identity each family uses for each status fault. */
const EXPECTED: Record<string, Record<number, unknown>> = {
  // Anthropic's error bodies carry the request id (as its `request-id` header).
  messages: {
    429: { type: 'error', error: { type: 'rate_limit_error', message: expect.any(String) }, request_id: expect.stringMatching(/^req_011/) },
    500: { type: 'error', error: { type: 'api_error', message: expect.any(String) }, request_id: expect.stringMatching(/^req_011/) },
    503: { type: 'error', error: { type: 'overloaded_error', message: expect.any(String) }, request_id: expect.stringMatching(/^req_011/) },
    529: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: expect.stringMatching(/^req_011/) },
  },
  openai: {
    429: { error: expect.objectContaining({ code: 'rate_limit_exceeded' }) },
    500: { error: expect.objectContaining({ type: 'server_error' }) },
    503: { error: expect.objectContaining({ type: 'server_error' }) },
    529: { error: expect.objectContaining({ type: 'server_error' }) },
  },
  google: {
    429: { error: expect.objectContaining({ code: 429, status: 'RESOURCE_EXHAUSTED' }) },
    500: { error: expect.objectContaining({ code: 500, status: 'INTERNAL' }) },
    503: { error: expect.objectContaining({ code: 503, status: 'UNAVAILABLE' }) },
    529: { error: expect.objectContaining({ code: 529, status: 'UNAVAILABLE' }) },
  },
};
const familyOf = (name: string): string =>
  name === 'messages' ? 'messages' : name === 'generate-content' || name === 'video' ? 'google' : 'openai';

describe('status faults', () => {
  const cases = PROTOCOLS.flatMap((protocol) => [429, 500, 503, 529].map((status) => [protocol.name, status] as const));
  it.each(cases)('%s answers /_fault/%d in its own envelope', async (name, status) => {
    const protocol = PROTOCOLS.find((entry) => entry.name === name)!;
    const answer = await post(sim, `/_fault/${status}${protocol.path}`, protocol.body(false), protocol.headers);
    expect(answer.status).toBe(status);
    expect(answer.json).toEqual(EXPECTED[familyOf(name)]![status]);
    expect(answer.headers.get('retry-after')).toBe(status === 429 ? '1' : null);
    expect(lastRequest(sim)).toMatchObject({
      path: protocol.path,
      rawPath: `/_fault/${status}${protocol.path}`,
      fault: String(status),
      status,
    });
  });

  it('applies to images and video too', async () => {
    const image = await post(sim, '/_fault/503/v1/images/generations', { model: 'gpt-image-1', prompt: 'x' }, OPENAI_HEADERS);
    expect(image.status).toBe(503);
    expect(image.json).toEqual(EXPECTED.openai![503]);
    const video = await post(sim, '/_fault/429/v1beta/models/veo-3:predictLongRunning', { instances: [{ prompt: 'x' }] }, GOOGLE_HEADERS);
    expect(video.status).toBe(429);
    expect(video.json).toEqual(EXPECTED.google![429]);
  });

  it('is selected by the x-sim-fault header and by a sim- model suffix as well', async () => {
    const byHeader = await post(sim, '/v1/chat/completions', PROTOCOLS[1]!.body(false), { ...OPENAI_HEADERS, 'x-sim-fault': '500' });
    expect(byHeader.status).toBe(500);
    const bySuffix = await post(
      sim,
      '/v1/messages',
      { model: 'sim-claude@fault=529', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
      ANTHROPIC_HEADERS,
    );
    expect(bySuffix.status).toBe(529);
    const google = await post(
      sim,
      '/v1beta/models/sim-gem@fault=429:generateContent',
      { contents: [{ parts: [{ text: 'hi' }] }] },
      GOOGLE_HEADERS,
    );
    expect(google.status).toBe(429);
  });

  it('reaches the SDKs as their error classes', async () => {
    await expect(
      anthropic(sim, `${sim.url}/_fault/529`).messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    ).rejects.toMatchObject({ status: 529, error: { type: 'error', error: { type: 'overloaded_error' } } });
    await expect(
      openai(sim, `${sim.url}/_fault/429/v1`).chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    await expect(
      genai(sim, `${sim.url}/_fault/503`).models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' }),
    ).rejects.toMatchObject({ status: 503 });
  });
});

/** Resolves to 'pending' if `promise` has not settled after `ms`: a hang never settles. */
async function stillPending(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const marker = Symbol('pending');
  const result = await Promise.race([
    promise.then(
      () => 'settled',
      () => 'settled',
    ),
    new Promise((resolve) => setTimeout(() => resolve(marker), ms)),
  ]);
  return result === marker;
}

async function waitFor(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('hang and slow first byte', () => {
  it.each(PROTOCOLS.map((protocol) => protocol.name))('%s: hang accepts and never answers, until the client gives up', async (name) => {
    const protocol = PROTOCOLS.find((entry) => entry.name === name)!;
    const controller = new AbortController();
    const pending = fetch(`${sim.url}/_fault/hang${protocol.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...protocol.headers },
      body: JSON.stringify(protocol.body(false)),
      signal: controller.signal,
    });
    expect(await stillPending(pending, 150)).toBe(true);
    const entry = lastRequest(sim);
    expect(entry).toMatchObject({ fault: 'hang', status: null, completed: false });
    controller.abort();
    await expect(pending).rejects.toThrow();
    await waitFor(() => entry.aborted);
    expect(entry.completed).toBe(false);
  });

  it('slow-first-byte holds the headers for x-sim-ttft-ms', async () => {
    const controller = new AbortController();
    const pending = fetch(`${sim.url}${PROTOCOLS[1]!.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...OPENAI_HEADERS, 'x-sim-fault': 'slow-first-byte', 'x-sim-ttft-ms': '600000' },
      body: JSON.stringify(PROTOCOLS[1]!.body(true)),
      signal: controller.signal,
    });
    expect(await stillPending(pending, 150)).toBe(true);
    expect(lastRequest(sim).status).toBeNull();
    controller.abort();
    await expect(pending).rejects.toThrow();
  });

  it('slow-first-byte then answers in full', async () => {
    const answer = await post(sim, '/_latency/30/0/_fault/slow-first-byte/v1/messages', PROTOCOLS[0]!.body(true), ANTHROPIC_HEADERS);
    expect(answer.status).toBe(200);
    expect(parseSse(answer.text).pop()!.event).toBe('message_stop');
    expect(lastRequest(sim)).toMatchObject({ path: '/v1/messages', fault: 'slow-first-byte', completed: true });
  });
});

describe('cut', () => {
  it.each(PROTOCOLS.map((protocol) => protocol.name))(
    '%s: a stream closes after half its chunks, without the terminal event',
    async (name) => {
      const protocol = PROTOCOLS.find((entry) => entry.name === name)!;
      const response = await fetch(`${sim.url}/_fault/cut${streamPath(protocol)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...protocol.headers },
        body: JSON.stringify(protocol.body(true)),
      });
      expect(response.status).toBe(200);
      await expect(response.text()).rejects.toThrow();
      const entry = lastRequest(sim);
      // One more round trip lets the server see the socket close before the entry is read.
      await fetch(`${sim.url}/_sim/health`);
      expect(entry).toMatchObject({ fault: 'cut', status: 200, completed: false, aborted: false });
    },
  );

  it('a stream read as text shows the missing terminal event', async () => {
    const reader = (
      await fetch(`${sim.url}/_fault/cut/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...ANTHROPIC_HEADERS },
        body: JSON.stringify(PROTOCOLS[0]!.body(true)),
      })
    ).body!.getReader();
    let text = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString('utf8');
      }
    } catch {
      // the cut
    }
    const events = parseSse(text).map((event) => event.event);
    expect(events[0]).toBe('message_start');
    expect(events).not.toContain('message_stop');
    expect(events).not.toContain('message_delta');
  });

  it.each(PROTOCOLS.map((protocol) => protocol.name))('%s: a whole answer is cut mid-body', async (name) => {
    const protocol = PROTOCOLS.find((entry) => entry.name === name)!;
    const response = await fetch(`${sim.url}/_fault/cut${protocol.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...protocol.headers },
      body: JSON.stringify(protocol.body(false)),
    });
    await expect(response.text()).rejects.toThrow();
  });

  it('the SDK stream helpers fail on a cut stream', async () => {
    await expect(
      anthropic(sim, `${sim.url}/_fault/cut`)
        .messages.stream(PROTOCOLS[0]!.body(false) as never)
        .finalMessage(),
    ).rejects.toThrow();
    await expect(
      openai(sim, `${sim.url}/_fault/cut/v1`)
        .chat.completions.stream(PROTOCOLS[1]!.body(false) as never)
        .finalChatCompletion(),
    ).rejects.toThrow();
  });
});

describe('error-event', () => {
  it('messages: event error overloaded_error after some chunks, reaching the SDK as an error', async () => {
    const answer = await post(sim, '/_fault/error-event/v1/messages', PROTOCOLS[0]!.body(true), ANTHROPIC_HEADERS);
    const events = parseSse(answer.text);
    const last = events[events.length - 1]!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    expect(events.map((event) => event.event)).not.toContain('message_stop');
    await expect(
      anthropic(sim, `${sim.url}/_fault/error-event`)
        .messages.stream(PROTOCOLS[0]!.body(false) as never)
        .finalMessage(),
    ).rejects.toMatchObject({ error: { error: { type: 'overloaded_error' } } });
  });

  it('chat: a data frame with error, no [DONE], reaching the SDK as an error', async () => {
    const answer = await post(sim, '/_fault/error-event/v1/chat/completions', PROTOCOLS[1]!.body(true), OPENAI_HEADERS);
    const events = parseSse(answer.text);
    expect(JSON.parse(events[events.length - 1]!.data)).toEqual({
      error: expect.objectContaining({ type: 'server_error', message: expect.any(String) }),
    });
    expect(events.some((event) => event.data === '[DONE]')).toBe(false);
    await expect(
      openai(sim, `${sim.url}/_fault/error-event/v1`)
        .chat.completions.stream(PROTOCOLS[1]!.body(false) as never)
        .finalChatCompletion(),
    ).rejects.toThrow();
  });

  it('responses: error then response.failed, numbered in sequence, reaching the SDK as an error', async () => {
    const answer = await post(sim, '/_fault/error-event/v1/responses', PROTOCOLS[2]!.body(true), OPENAI_HEADERS);
    const events = parseSse(answer.text).map((event) => ({ event: event.event, data: JSON.parse(event.data) }));
    expect(events.slice(-2).map((event) => event.event)).toEqual(['error', 'response.failed']);
    events.forEach((event, index) => expect(event.data.sequence_number).toBe(index));
    expect(events[events.length - 1]!.data.response).toMatchObject({ status: 'failed', error: { code: 'server_error' } });
    await expect(
      openai(sim, `${sim.url}/_fault/error-event/v1`)
        .responses.stream(PROTOCOLS[2]!.body(false) as never)
        .finalResponse(),
    ).rejects.toThrow();
  });

  it('generate-content: a data frame with error (SSE) and an error element closing the JSON array', async () => {
    const client = genai(sim, `${sim.url}/_fault/error-event`);
    const iterate = async (): Promise<void> => {
      for await (const chunk of await client.models.generateContentStream({ model: 'gemini-2.5-flash', contents: words })) void chunk;
    };
    await expect(iterate()).rejects.toMatchObject({ status: 503 });
    const array = await post(
      sim,
      '/_fault/error-event/v1beta/models/gemini-2.5-flash:streamGenerateContent',
      PROTOCOLS[3]!.body(true),
      GOOGLE_HEADERS,
    );
    const elements = array.json as Record<string, unknown>[];
    expect(elements[elements.length - 1]).toEqual({ error: { code: 503, message: expect.any(String), status: 'UNAVAILABLE' } });
    expect(elements.length).toBeGreaterThan(1);
  });

  it('fails a request that does not stream as overloaded', async () => {
    const answer = await post(sim, '/_fault/error-event/v1/messages', PROTOCOLS[0]!.body(false), ANTHROPIC_HEADERS);
    expect(answer.status).toBe(529);
  });
});

describe('latency knobs', () => {
  it('reads per-request latency from headers and from the /_latency prefix', async () => {
    await post(sim, '/v1/chat/completions', PROTOCOLS[1]!.body(true), {
      ...OPENAI_HEADERS,
      'x-sim-ttft-ms': '3',
      'x-sim-chunk-delay-ms': '2',
    });
    expect(lastRequest(sim).latency).toEqual({ ttftMs: 3, chunkDelayMs: 2 });
    const answer = await post(sim, '/_latency/4/1/v1/responses', PROTOCOLS[2]!.body(true), OPENAI_HEADERS);
    expect(parseSse(answer.text).pop()!.event).toBe('response.completed');
    expect(lastRequest(sim)).toMatchObject({ path: '/v1/responses', latency: { ttftMs: 4, chunkDelayMs: 1 }, completed: true });
  });

  it('applies server-wide latency from its options', async () => {
    const slowSim = await startSimulator({ ttftMs: 2, chunkDelayMs: 1 });
    try {
      const answer = await post(slowSim, '/v1/messages', PROTOCOLS[0]!.body(true), ANTHROPIC_HEADERS);
      expect(parseSse(answer.text).pop()!.event).toBe('message_stop');
      expect(lastRequest(slowSim).latency).toEqual({ ttftMs: 2, chunkDelayMs: 1 });
    } finally {
      await slowSim.close();
    }
  });
});
