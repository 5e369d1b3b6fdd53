/**
 * Cached tokens billed right across every translation. For each upstream family that reports
 * prompt-cache figures (Messages: reads and writes; Chat, Responses, Generate-Content: reads) × each
 * client protocol the model offers, streamed and not: the same long prompt is sent twice through the
 * gateway (the second with a longer, cache-marked question), and the second answer must show the upstream's cache figures in the client's own
 * convention, with totals that add up; its usage row must hold the same figures and its cost must
 * use the cache-read and cache-write prices exactly.
 *
 * The truth is the upstream's own report: the two upstream bodies the gateway sent are replayed to
 * the simulator under a fresh credential (a prompt cache of its own), so the second replay reports
 * exactly what the upstream reported to the gateway.
 */
import { Catalog } from '../../src/catalog/catalog';
import { DEFAULT_CATALOG } from '../../src/catalog/default-catalog';
import type { ModelPrices } from '../../src/catalog/model';
import { addUpstreamAccount, createGroup } from '../../src/process/seed';
import type { Protocol } from '../../src/ir/protocol';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { SseParser } from '../../src/protocols/shared/sse-parser';
import { startBillingWorker } from '../../workers/billing-worker';
import { startTestGateway, type TestGateway } from '../support/gateway';

jest.setTimeout(120_000);

/** Normalized figures: uncached input, cache reads, cache writes, output (reasoning included), reasoning. */
interface Figures {
  uncached: number;
  read: number;
  write: number;
  output: number;
  reasoning: number;
}
type Json = Record<string, any>;

const UPSTREAMS: Array<{ protocol: Protocol; model: string; clients: Protocol[] }> = [
  // A Responses client cannot mark cache breakpoints, and the Messages family caches only marked prefixes.
  { protocol: 'messages', model: 'claude-sonnet-4-5', clients: ['messages', 'chat'] },
  { protocol: 'chat', model: 'gpt-4.1', clients: ['messages', 'chat', 'responses'] },
  { protocol: 'responses', model: 'gpt-4.1', clients: ['messages', 'chat', 'responses'] },
  { protocol: 'generate-content', model: 'gemini-2.5-flash', clients: ['messages', 'chat', 'responses', 'generate-content'] },
];

const FILLER = 'Answer in the house style: short sentences, concrete nouns, and no filler words at all. '.repeat(90);
const EPHEMERAL = { type: 'ephemeral' };

/**
 * `turn` 1 asks a short question; turn 2 a long one, marked for caching where the client can mark
 * (Messages, Chat): against a Messages upstream it then reads the system prompt and writes itself.
 */
function clientRequest(client: Protocol, model: string, system: string, stream: boolean, turn: 1 | 2): { path: string; body: Json } {
  const question =
    turn === 1
      ? 'What is the next step of the plan?'
      : `Then what comes after that step? ${'Consider every dependency between the tasks. '.repeat(30)}`;
  const mark = turn === 2 ? { cache_control: EPHEMERAL } : {};
  switch (client) {
    case 'messages':
      return {
        path: '/v1/messages',
        body: {
          model,
          max_tokens: 48,
          stream,
          system: [{ type: 'text', text: system, cache_control: EPHEMERAL }],
          messages: [{ role: 'user', content: [{ type: 'text', text: question, ...mark }] }],
        },
      };
    case 'chat':
      return {
        path: '/v1/chat/completions',
        body: {
          model,
          max_tokens: 48,
          stream,
          ...(stream ? { stream_options: { include_usage: true } } : {}),
          messages: [
            { role: 'system', content: [{ type: 'text', text: system, cache_control: EPHEMERAL }] },
            { role: 'user', content: [{ type: 'text', text: question, ...mark }] },
          ],
        },
      };
    case 'responses':
      return { path: '/v1/responses', body: { model, max_output_tokens: 48, stream, instructions: system, input: question } };
    case 'generate-content':
      return {
        path: `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        body: {
          systemInstruction: { parts: [{ text: system }] },
          contents: [{ role: 'user', parts: [{ text: question }] }],
          generationConfig: { maxOutputTokens: 48 },
        },
      };
  }
}

function authHeaders(protocol: Protocol, key: string): Record<string, string> {
  switch (protocol) {
    case 'messages':
      return { 'x-api-key': key, 'anthropic-version': '2023-06-01' };
    case 'generate-content':
      return { 'x-goog-api-key': key };
    default:
      return { authorization: `Bearer ${key}` };
  }
}

/** The usage object of an answer, whole or streamed, as the client protocol reports it. */
async function usageOf(client: Protocol, response: Response, stream: boolean): Promise<Json> {
  if (!stream) {
    const body = (await response.json()) as Json;
    return client === 'generate-content' ? body.usageMetadata : body.usage;
  }
  const parser = new SseParser();
  const events = [...parser.push(await response.text()), ...parser.end()];
  let usage: Json = {};
  for (const event of events) {
    if (event.data === '[DONE]') continue;
    const data = JSON.parse(event.data) as Json;
    if (client === 'messages' && data.type === 'message_start') usage = { ...usage, ...data.message.usage };
    if (client === 'messages' && data.type === 'message_delta') usage = { ...usage, ...data.usage };
    if (client === 'chat' && data.usage) usage = data.usage;
    if (client === 'responses' && (data.type === 'response.completed' || data.type === 'response.incomplete')) usage = data.response.usage;
    if (client === 'generate-content' && data.usageMetadata) usage = data.usageMetadata;
  }
  return usage;
}

/** The upstream's own report → normalized figures (PROTOCOLS.md section 3), written out independently of the codecs. */
function upstreamFigures(protocol: Protocol, body: Json): Figures {
  switch (protocol) {
    case 'messages': {
      const u = body.usage;
      return {
        uncached: u.input_tokens,
        read: u.cache_read_input_tokens ?? 0,
        write: u.cache_creation_input_tokens ?? 0,
        output: u.output_tokens,
        reasoning: 0,
      };
    }
    case 'chat': {
      const u = body.usage;
      const read = u.prompt_tokens_details?.cached_tokens ?? 0;
      return {
        uncached: u.prompt_tokens - read,
        read,
        write: 0,
        output: u.completion_tokens,
        reasoning: u.completion_tokens_details?.reasoning_tokens ?? 0,
      };
    }
    case 'responses': {
      const u = body.usage;
      const read = u.input_tokens_details?.cached_tokens ?? 0;
      return {
        uncached: u.input_tokens - read,
        read,
        write: 0,
        output: u.output_tokens,
        reasoning: u.output_tokens_details?.reasoning_tokens ?? 0,
      };
    }
    case 'generate-content': {
      const u = body.usageMetadata;
      const read = u.cachedContentTokenCount ?? 0;
      const thoughts = u.thoughtsTokenCount ?? 0;
      return { uncached: u.promptTokenCount - read, read, write: 0, output: (u.candidatesTokenCount ?? 0) + thoughts, reasoning: thoughts };
    }
  }
}

/** What the client must read for these figures, in its own convention. */
function expectedClientUsage(client: Protocol, f: Figures): Json {
  const allInput = f.uncached + f.read + f.write;
  switch (client) {
    case 'messages':
      return { input_tokens: f.uncached, cache_read_input_tokens: f.read, cache_creation_input_tokens: f.write, output_tokens: f.output };
    case 'chat':
      return {
        prompt_tokens: allInput,
        prompt_tokens_details: { cached_tokens: f.read },
        completion_tokens: f.output,
        total_tokens: allInput + f.output,
      };
    case 'responses':
      return {
        input_tokens: allInput,
        input_tokens_details: { cached_tokens: f.read },
        output_tokens: f.output,
        total_tokens: allInput + f.output,
      };
    case 'generate-content':
      return {
        promptTokenCount: allInput,
        cachedContentTokenCount: f.read,
        candidatesTokenCount: f.output - f.reasoning,
        totalTokenCount: allInput + f.output,
        ...(f.reasoning > 0 ? { thoughtsTokenCount: f.reasoning } : {}),
      };
  }
}

function expectedCredits(f: Figures, prices: ModelPrices): number {
  const input = BigInt(prices.inputPerMillion ?? 0);
  const micro =
    BigInt(f.uncached) * input +
    BigInt(f.read) * BigInt(prices.cacheReadPerMillion ?? prices.inputPerMillion ?? 0) +
    BigInt(f.write) * BigInt(prices.cacheWritePerMillion ?? prices.inputPerMillion ?? 0) +
    BigInt(f.output) * BigInt(prices.outputPerMillion ?? 0);
  return Number((micro + 999_999n) / 1_000_000n);
}

describe('cached tokens across every translation', () => {
  let gateway: TestGateway;
  let billing: { close(): Promise<void> };
  const keys = new Map<Protocol, string>();
  const catalog = new Catalog(DEFAULT_CATALOG);

  beforeAll(async () => {
    gateway = await startTestGateway();
    billing = await startBillingWorker(gateway.deps, { concurrency: 2, lingerMs: 1 });
    // One group per upstream family, so the family that answers is known.
    for (const upstream of UPSTREAMS) {
      const groupId = await createGroup(gateway.deps.db, { name: `cache-${upstream.protocol}`, family: null });
      await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
        groupId,
        protocol: upstream.protocol,
        baseUrl: gateway.sim.url,
        apiKey: 'sim-key',
        models: [upstream.model],
      });
      keys.set(
        upstream.protocol,
        (
          await insertApiKey(gateway.deps.db, gateway.deps.crypto, {
            accountId: gateway.accountId,
            groupId,
            name: `cache-${upstream.protocol}`,
          })
        ).secret,
      );
    }
    gateway.services.upstreams.invalidate();
  });
  afterAll(async () => {
    await billing.close();
    await gateway.close();
  });

  async function replayUpstream(protocol: Protocol, entries: Array<{ path: string; body: unknown }>, credential: string): Promise<Json> {
    let last: Json = {};
    for (const entry of entries) {
      const body = { ...(entry.body as Json) };
      delete body.stream_options;
      if (protocol !== 'generate-content') body.stream = false;
      const path = entry.path.replace(':streamGenerateContent?alt=sse', ':generateContent');
      const response = await fetch(`${gateway.sim.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authHeaders(protocol, credential) },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      last = (await response.json()) as Json;
    }
    return last;
  }

  async function usageRow(requestId: string): Promise<Json> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const rows = await gateway.deps.db.query(
        'SELECT prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, credits::int AS credits FROM usage_rows WHERE request_id = $1',
        [requestId],
      );
      if (rows.rows.length > 0) return rows.rows[0] as Json;
      if (Date.now() > deadline) throw new Error(`no usage row for ${requestId}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const cells = UPSTREAMS.flatMap((upstream) =>
    upstream.clients.flatMap((client) => [false, true].map((stream) => ({ upstream, client, stream }))),
  );

  it.each(
    cells.map((cell) => [`${cell.upstream.protocol} upstream → ${cell.client} client${cell.stream ? ', streamed' : ''}`, cell] as const),
  )('%s', async (name, { upstream, client, stream }) => {
    const system = `[${name}] You are the planning assistant. ${FILLER}`;
    const key = keys.get(upstream.protocol)!;
    const send = (turn: 1 | 2) => {
      const request = clientRequest(client, upstream.model, system, stream, turn);
      return fetch(`${gateway.url}${request.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authHeaders(client, key) },
        body: JSON.stringify(request.body),
      });
    };
    const upstreamBefore = gateway.sim.requests.length;
    expect((await send(1)).status).toBe(200);
    const second = await send(2);
    expect(second.status).toBe(200);
    const requestId = second.headers.get('x-request-id')!;
    const seen = await usageOf(client, second, stream);
    const sent = gateway.sim.requests.slice(upstreamBefore);
    expect(sent).toHaveLength(2);
    expect(sent.every((entry) => entry.protocol === upstream.protocol)).toBe(true);

    const truth = upstreamFigures(
      upstream.protocol,
      await replayUpstream(upstream.protocol, sent, `sim-key.${Math.random().toString(36).slice(2)}`),
    );
    expect(truth.read).toBeGreaterThan(1000);
    if (upstream.protocol === 'messages') expect(truth.write).toBeGreaterThan(100);
    expect(seen).toMatchObject(expectedClientUsage(client, truth));

    const row = await usageRow(requestId);
    expect(row).toEqual({
      prompt_tokens: truth.uncached + truth.read + truth.write,
      completion_tokens: truth.output,
      cache_read_tokens: truth.read,
      cache_write_tokens: truth.write,
      reasoning_tokens: truth.reasoning,
      credits: expectedCredits(truth, catalog.find(upstream.model)!.prices),
    });
  });

  it("bills the first request's cache write at the cache-write price (Messages upstream, Chat client)", async () => {
    const system = `[write] You are the planning assistant. ${FILLER}`;
    const request = clientRequest('chat', 'claude-sonnet-4-5', system, false, 1);
    const response = await fetch(`${gateway.url}${request.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...authHeaders('chat', keys.get('messages')!) },
      body: JSON.stringify(request.body),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Json;
    const row = await usageRow(response.headers.get('x-request-id')!);
    expect(row.cache_write_tokens).toBeGreaterThan(1000);
    expect(row.cache_read_tokens).toBe(0);
    expect(body.usage.prompt_tokens).toBe(row.prompt_tokens);
    const f: Figures = {
      uncached: row.prompt_tokens - row.cache_write_tokens,
      read: 0,
      write: row.cache_write_tokens,
      output: row.completion_tokens,
      reasoning: 0,
    };
    expect(row.credits).toBe(expectedCredits(f, catalog.find('claude-sonnet-4-5')!.prices));
  });
});
