/**
 * Mixed inference traffic through a whole gateway for the exactness tests: the four protocols,
 * streamed and not, successes (direct and after a failover), upstream faults, error frames after
 * the first byte, bad input and client aborts. Each call's expected cost is computed here from the
 * simulator's documented token rule, independently of the gateway.
 */
import { computeTokenCost } from '../../../src/billing/compute-cost';
import type { Catalog } from '../../../src/catalog/catalog';
import { addUpstreamAccount, createGroup } from '../../../src/process/seed';
import type { Protocol } from '../../../src/ir/protocol';
import { insertApiKey } from '../../../src/keys/insert-api-key';
import type { TestGateway } from '../../support/gateway';

export type CallKind = 'ok' | 'failover' | 'upstream-fault' | 'error-frame' | 'bad-input' | 'abort';

export interface CallPlan {
  index: number;
  kind: CallKind;
  protocol: Protocol;
  model: string;
  stream: boolean;
  text: string;
}

export interface CallResult extends CallPlan {
  requestId: string | null;
  status: number;
  body: string;
  /** The gateway's `x-request-cost-credits` header (whole answers). */
  costHeader: number | null;
  /** Credits the simulator's token rule gives for the complete answer (an aborted stream's: had it run to its end). */
  expectedCredits: number;
}

export type TrafficKeys = Record<'ok' | 'failover' | 'upstream-fault' | 'error-frame' | 'slow', string>;

const PROTOCOLS: readonly Protocol[] = ['messages', 'chat', 'responses', 'generate-content'];
const MODELS: Record<Protocol, readonly string[]> = {
  // Native first, then one the gateway translates to another protocol.
  messages: ['claude-haiku-4-5', 'gpt-4.1'],
  chat: ['gpt-4.1', 'claude-sonnet-4-5'],
  responses: ['gpt-5', 'claude-haiku-4-5'],
  'generate-content': ['gemini-2.5-flash', 'gemini-2.5-pro'],
};
const KIND_CYCLE: readonly CallKind[] = [
  'ok',
  'ok',
  'failover',
  'ok',
  'upstream-fault',
  'ok',
  'error-frame',
  'ok',
  'bad-input',
  'ok',
  'abort',
  'ok',
];

/** The simulator's tokenizer: ceil(UTF-8 bytes / 4), at least 1 for a non-empty text. */
function tokens(text: string): number {
  return text.length === 0 ? 0 : Math.max(1, Math.ceil(Buffer.byteLength(text) / 4));
}

export function planCalls(count: number): CallPlan[] {
  return Array.from({ length: count }, (_, index) => {
    const kind = KIND_CYCLE[Math.floor(index / 4) % KIND_CYCLE.length]!;
    const protocol = PROTOCOLS[index % 4]!;
    const models = MODELS[protocol];
    return {
      index,
      kind,
      protocol,
      model: models[Math.floor(index / 48) % models.length]!,
      stream: kind === 'abort' ? true : Math.floor(index / 8) % 2 === 0,
      // A long, slow stream for aborts; otherwise a short prompt whose length varies the cost.
      text: kind === 'abort' ? `repeat:80:tick tock ${index} ` : `bill ${index} ${'x'.repeat(index % 37)}`,
    };
  });
}

/** Groups whose simulator accounts fail, fail over, end streams with an error frame or stream slowly. */
/** What the traffic needs of a gateway: its URL (a load balancer's will do) and its dependencies. */
export type TrafficTarget = Pick<TestGateway, 'url' | 'deps'>;

export async function createTrafficKeys(
  gateway: Pick<TestGateway, 'deps' | 'sim' | 'accountId' | 'key'> & { services?: Pick<TestGateway['services'], 'upstreams'> },
): Promise<TrafficKeys> {
  const { db, crypto } = gateway.deps;
  const group = async (name: string, prefixes: string[]) => {
    const groupId = await createGroup(db, { name, family: null });
    for (const protocol of PROTOCOLS) {
      for (const [priority, prefix] of prefixes.entries()) {
        await addUpstreamAccount(db, crypto, {
          groupId,
          name: `${name} ${protocol} ${priority}`,
          protocol,
          baseUrl: gateway.sim.url + prefix,
          apiKey: 'sim-key',
          models: ['*'],
          priority,
        });
      }
    }
    return (await insertApiKey(db, crypto, { accountId: gateway.accountId, groupId, name })).secret;
  };
  const keys: TrafficKeys = {
    ok: gateway.key,
    failover: await group('failover', ['/_fault/500', '']),
    'upstream-fault': await group('broken', ['/_fault/500']),
    'error-frame': await group('error-frames', ['/_fault/error-event']),
    slow: await group('slow', ['/_latency/0/15']),
  };
  gateway.services?.upstreams.invalidate();
  return keys;
}

/** The cost of the whole answer: `Echo: <text>`, or for `repeat:<N>:<text>` the text N times. */
export function expectedCredits(catalog: Catalog, plan: CallPlan): number {
  const model = catalog.find(plan.model);
  if (!model) throw new Error(`unknown model ${plan.model}`);
  const repeat = /^repeat:(\d+):(.*)$/s.exec(plan.text);
  const answer = repeat ? repeat[2]!.repeat(Number(repeat[1])) : `Echo: ${plan.text}`;
  return computeTokenCost(
    { inputTokens: tokens(plan.text), outputTokens: tokens(answer), cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
    model.prices,
  );
}

function request(baseUrl: string, plan: CallPlan, key: string): { url: string; headers: Record<string, string>; body: unknown } {
  const bad = plan.kind === 'bad-input';
  switch (plan.protocol) {
    case 'messages':
      return {
        url: `${baseUrl}/v1/messages`,
        headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        // Bad input: no max_tokens.
        body: {
          model: plan.model,
          ...(bad ? {} : { max_tokens: 2_000 }),
          stream: plan.stream,
          messages: [{ role: 'user', content: plan.text }],
        },
      };
    case 'chat':
      return {
        url: `${baseUrl}/v1/chat/completions`,
        headers: { authorization: `Bearer ${key}` },
        body: {
          model: plan.model,
          stream: plan.stream,
          ...(plan.stream ? { stream_options: { include_usage: true } } : {}),
          messages: bad ? [{ role: 'wizard', content: plan.text }] : [{ role: 'user', content: plan.text }],
        },
      };
    case 'responses':
      return {
        url: `${baseUrl}/v1/responses`,
        headers: { authorization: `Bearer ${key}` },
        body: { model: bad ? 'no-such-model' : plan.model, stream: plan.stream, input: plan.text },
      };
    case 'generate-content':
      return {
        url: `${baseUrl}/v1beta/models/${plan.model}:${plan.stream ? 'streamGenerateContent?alt=sse&' : 'generateContent?'}key=${key}`,
        headers: {},
        body: { contents: bad ? [] : [{ role: 'user', parts: [{ text: plan.text }] }] },
      };
  }
}

export async function runCall(gateway: TrafficTarget, keys: TrafficKeys, plan: CallPlan): Promise<CallResult> {
  const key = plan.kind === 'abort' ? keys.slow : plan.kind === 'bad-input' ? keys.ok : keys[plan.kind];
  const { url, headers, body } = request(gateway.url, plan, key);
  const controller = new AbortController();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  const base = {
    ...plan,
    requestId: response.headers.get('x-request-id'),
    status: response.status,
    costHeader: response.headers.has('x-request-cost-credits') ? Number(response.headers.get('x-request-cost-credits')) : null,
    expectedCredits: expectedCredits(gateway.deps.catalog, plan),
  };
  if (plan.kind === 'abort') {
    // Leave after the first bytes of the stream: the gateway bills what was produced until then.
    const reader = response.body?.getReader();
    const first = await reader?.read();
    controller.abort();
    await reader?.cancel().catch(() => undefined);
    return { ...base, body: first?.value ? Buffer.from(first.value).toString('utf8') : '' };
  }
  return { ...base, body: await response.text() };
}

/** Runs the plans with `concurrency` calls in flight; `onProgress` sees the count of calls finished. */
export async function runTraffic(
  gateway: TrafficTarget,
  keys: TrafficKeys,
  plans: readonly CallPlan[],
  concurrency: number,
  onProgress?: (done: number) => Promise<void>,
): Promise<CallResult[]> {
  const results: CallResult[] = [];
  let next = 0;
  const lane = async () => {
    while (next < plans.length) {
      const plan = plans[next++]!;
      results.push(await runCall(gateway, keys, plan));
      await onProgress?.(results.length);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return results.sort((a, b) => a.index - b.index);
}
