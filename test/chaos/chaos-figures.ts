/**
 * What a chaos scenario measures, all of it observable from outside: HTTP answers (tallied by status,
 * each error checked against its protocol's envelope), the wallet and usage rows in PostgreSQL, the
 * leases and the cached wallet as the accounting headers report them.
 */
import type { Pool } from 'pg';
import type { Protocol } from '../../src/ir/protocol';
import { answerProblem, type Surface } from '../fuzz/envelopes';
import { probe, type ProbeAnswer } from '../fuzz/http-probe';

export interface Tally {
  requests: number;
  byStatus: Record<number, number>;
  /** Network failures (connection refused or reset: the process was gone). */
  dropped: number;
  /** Answers that broke an invariant (wrong envelope, 500, leak), with the first few reasons. */
  broken: string[];
  /** The slowest refusal (5xx) in ms. */
  slowestRefusalMs: number;
}

export function newTally(): Tally {
  return { requests: 0, byStatus: {}, dropped: 0, broken: [], slowestRefusalMs: 0 };
}

export function record(tally: Tally, surface: Surface, answer: ProbeAnswer, elapsedMs: number): void {
  tally.requests++;
  tally.byStatus[answer.status] = (tally.byStatus[answer.status] ?? 0) + 1;
  if (answer.status >= 500) tally.slowestRefusalMs = Math.max(tally.slowestRefusalMs, elapsedMs);
  const problem = answerProblem(surface, answer);
  if (problem && tally.broken.length < 10) tally.broken.push(`${surface} ${answer.status}: ${problem}`);
}

/** One inference request per protocol, cheap and non-streamed, with the headers its protocol wants. */
export const CALLS: Record<
  Exclude<Surface, 'gateway'>,
  (key: string) => { path: string; headers: Record<string, string>; body: string }
> = {
  messages: (key) => ({
    path: '/v1/messages',
    headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
  }),
  chat: (key) => ({
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4.1', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
  }),
  responses: (key) => ({
    path: '/v1/responses',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4.1', max_output_tokens: 16, input: 'hi', store: false }),
  }),
  'generate-content': (key) => ({
    path: '/v1beta/models/gemini-2.5-flash:generateContent',
    headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: 16 } }),
  }),
};

export const PROTOCOLS = Object.keys(CALLS) as Array<keyof typeof CALLS>;

/** The upstream account a scenario's group needs to serve each protocol's call (its model and protocol). */
export const UPSTREAM_FOR: Record<keyof typeof CALLS, { protocol: Protocol; models: string[] }> = {
  messages: { protocol: 'messages', models: ['claude-haiku-4-5'] },
  chat: { protocol: 'chat', models: ['gpt-4.1'] },
  responses: { protocol: 'chat', models: ['gpt-4.1'] },
  'generate-content': { protocol: 'generate-content', models: ['gemini-2.5-flash'] },
};

/** The same call, streamed (Generate-Content by its streaming method with SSE). */
export function streamedCall(surface: keyof typeof CALLS, key: string): { path: string; headers: Record<string, string>; body: string } {
  const plain = CALLS[surface](key);
  if (surface === 'generate-content') return { ...plain, path: plain.path.replace(':generateContent', ':streamGenerateContent?alt=sse') };
  return { ...plain, body: JSON.stringify({ ...(JSON.parse(plain.body) as object), stream: true }) };
}

/** Sends one call and tallies it; a dropped connection counts as dropped, not as an answer. */
export async function call(baseUrl: string, key: string, surface: keyof typeof CALLS, tally: Tally): Promise<ProbeAnswer | undefined> {
  const startedAt = Date.now();
  try {
    const answer = await probe(baseUrl, CALLS[surface](key));
    record(tally, surface, answer, Date.now() - startedAt);
    return answer;
  } catch {
    tally.requests++;
    tally.dropped++;
    return undefined;
  }
}

/** Runs `connections` closed loops of calls, rotating protocols, until `stop()` resolves. */
export async function load(baseUrl: () => string, key: string, connections: number, tally: Tally, until: Promise<void>): Promise<void> {
  let stopped = false;
  void until.then(() => {
    stopped = true;
  });
  await Promise.all(
    Array.from({ length: connections }, async (_, index) => {
      let turn = index;
      while (!stopped) {
        const answer = await call(baseUrl(), key, PROTOCOLS[turn++ % PROTOCOLS.length]!, tally);
        if (!answer) await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }),
  );
}

export interface LedgerFigures {
  balance: number;
  usageRows: number;
  usageCredits: number;
}

export async function ledgerFigures(db: Pool, accountId: number): Promise<LedgerFigures> {
  const result = await db.query<{ balance: string; rows: string; credits: string }>(
    `SELECT (SELECT balance_credits FROM accounts WHERE id = $1) AS balance,
            (SELECT count(*) FROM usage_rows WHERE account_id = $1) AS rows,
            (SELECT coalesce(sum(credits), 0) FROM usage_rows WHERE account_id = $1) AS credits`,
    [accountId],
  );
  const row = result.rows[0]!;
  return { balance: Number(row.balance), usageRows: Number(row.rows), usageCredits: Number(row.credits) };
}

export interface AccountingView {
  /** Leases held by the account (the Messages `x-ratelimit-*-requests` pair). */
  leases: number;
  /** The cached wallet the gateway admits against (`x-quota-remaining-credits`, unlimited key). */
  cachedWallet: number;
}

/** A free, refused Messages call (no `messages`): its accounting headers, without taking a lease. */
export async function accountingView(baseUrl: string, key: string): Promise<AccountingView | undefined> {
  const answer = await probe(baseUrl, {
    path: '/v1/messages',
    headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 16 }),
  }).catch(() => undefined);
  const limit = Number(answer?.headers['x-ratelimit-limit-requests']);
  const remaining = Number(answer?.headers['x-ratelimit-remaining-requests']);
  const wallet = Number(answer?.headers['x-quota-remaining-credits']);
  if (!answer || answer.status !== 400 || [limit, remaining, wallet].some(Number.isNaN)) return undefined;
  return { leases: limit - remaining, cachedWallet: wallet };
}

export async function eventually<T>(
  what: string,
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  timeoutMs: number,
): Promise<{ value: T; afterMs: number }> {
  const startedAt = Date.now();
  let last: T | undefined;
  for (;;) {
    last = await read();
    if (ok(last)) return { value: last, afterMs: Date.now() - startedAt };
    if (Date.now() - startedAt > timeoutMs) throw new Error(`${what}: not reached within ${timeoutMs} ms; last ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Prints a scenario's figures (and returns them for docs/reliability.md). */
export function printFigures(scenario: string, figures: Record<string, unknown>): void {
  process.stdout.write(`\n[chaos] ${scenario}: ${JSON.stringify(figures)}\n`);
}

/** The ledger once billing has gone quiet (two equal reads 1.5 s apart). */
export async function settledFigures(db: Pool, accountId: number, timeoutMs = 60_000): Promise<LedgerFigures> {
  const { value } = await eventually(
    'billing settled',
    async () => {
      const first = await ledgerFigures(db, accountId);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      return { first, second: await ledgerFigures(db, accountId) };
    },
    ({ first, second }) => first.usageRows === second.usageRows && first.balance === second.balance,
    timeoutMs,
  );
  return value.second;
}
