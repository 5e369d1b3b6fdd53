/** Accounts, keys and usage events for the billing tests. */
import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import type { Pool } from 'pg';
import type { SecretCrypto } from '../../../src/auth/secret-crypto';
import type { UsageEvent } from '../../../src/billing/usage-event';
import { createAccount, createGroup, topUp } from '../../../src/process/seed';
import { insertApiKey } from '../../../src/keys/insert-api-key';

export interface BillingFixture {
  accountId: number;
  keyIds: number[];
  groupId: number;
  startingBalance: number;
}

export async function createBillingFixture(
  db: Pool,
  crypto: SecretCrypto,
  options: { keys?: number; balance?: number; groupName?: string; organization?: boolean } = {},
): Promise<BillingFixture> {
  const groupId = await createGroup(db, { name: options.groupName ?? `g-${randomBytes(4).toString('hex')}`, family: null });
  const accountId = await createAccount(db, { name: 'billing-test', tier: 'pro', organization: options.organization });
  const startingBalance = options.balance ?? 100_000_000;
  await topUp(db, accountId, startingBalance, `topup-${accountId}`, 'test top-up');
  const keyIds: number[] = [];
  for (let index = 0; index < (options.keys ?? 2); index += 1) {
    keyIds.push((await insertApiKey(db, crypto, { accountId, groupId, name: `key ${index}` })).id);
  }
  return { accountId, keyIds, groupId, startingBalance };
}

let sequence = 0;

/** A usage event with deterministic pseudo-random figures (seeded by the sequence number). */
export function usageEvent(fixture: { accountId: number; keyIds: number[] }, overrides: Partial<UsageEvent> = {}): UsageEvent {
  sequence += 1;
  const n = sequence;
  const keyId = fixture.keyIds[n % fixture.keyIds.length] ?? null;
  return {
    requestId: `req_${randomBytes(12).toString('hex')}`,
    accountId: fixture.accountId,
    apiKeyId: keyId,
    model: n % 3 === 0 ? 'gpt-5' : 'claude-sonnet-4-5',
    protocol: (['messages', 'responses', 'chat', 'generate-content'] as const)[n % 4] ?? 'chat',
    upstreamAccountId: null,
    promptTokens: 100 + (n % 17),
    completionTokens: 20 + (n % 11),
    cacheReadTokens: n % 5,
    cacheWriteTokens: 0,
    reasoningTokens: n % 7,
    images: 0,
    videoSeconds: 0,
    credits: 1 + ((n * 7919) % 5000),
    stream: n % 2 === 0,
    status: 'ok',
    startedAt: Date.now(),
    ...overrides,
  };
}

export interface Totals {
  rows: number;
  rowCredits: number;
  balance: number;
  ledgerSum: number;
  charges: number;
  chargeSum: number;
  keySpent: Map<number, number>;
}

/** Everything the exactness assertions compare, read from PostgreSQL. */
export async function readTotals(db: Pool, accountId: number): Promise<Totals> {
  const rows = await db.query<{ n: number; credits: number | null }>(
    'SELECT count(*)::int AS n, sum(credits)::bigint AS credits FROM usage_rows WHERE account_id = $1',
    [accountId],
  );
  const account = await db.query<{ balance_credits: number }>('SELECT balance_credits FROM accounts WHERE id = $1', [accountId]);
  const ledger = await db.query<{ total: number | null }>(
    'SELECT sum(amount_credits)::bigint AS total FROM ledger_entries WHERE account_id = $1',
    [accountId],
  );
  const charges = await db.query<{ n: number; total: number | null }>(
    "SELECT count(*)::int AS n, sum(amount_credits)::bigint AS total FROM ledger_entries WHERE account_id = $1 AND kind = 'charge'",
    [accountId],
  );
  const keys = await db.query<{ id: number; spent_credits: number }>('SELECT id, spent_credits FROM api_keys WHERE account_id = $1', [
    accountId,
  ]);
  return {
    rows: rows.rows[0]?.n ?? 0,
    rowCredits: rows.rows[0]?.credits ?? 0,
    balance: account.rows[0]?.balance_credits ?? Number.NaN,
    ledgerSum: ledger.rows[0]?.total ?? 0,
    charges: charges.rows[0]?.n ?? 0,
    chargeSum: charges.rows[0]?.total ?? 0,
    keySpent: new Map(keys.rows.map((row) => [row.id, row.spent_credits])),
  };
}

export function sumCredits(events: readonly UsageEvent[]): number {
  return events.reduce((sum, event) => sum + event.credits, 0);
}

export function creditsByKey(events: readonly UsageEvent[]): Map<number, number> {
  const totals = new Map<number, number>();
  for (const event of events) if (event.apiKeyId !== null) totals.set(event.apiKeyId, (totals.get(event.apiKeyId) ?? 0) + event.credits);
  return totals;
}

/** Polls until `condition` holds; fails the test with `what` after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T>,
  condition: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (condition(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last value: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * What a Redis flush does to one tenant: every key under the prefix is gone (queues included), at
 * one instant, as FLUSHALL would (one script; a key-by-key delete racing live writers would leave
 * half-deleted jobs, which a real flush never does). Test Redis is shared, so FLUSHALL itself is out.
 */
export async function deleteKeysWithPrefix(redis: Redis, prefix: string): Promise<number> {
  const script = `
    local keys = redis.call('KEYS', ARGV[1])
    for i = 1, #keys, 1000 do redis.call('DEL', unpack(keys, i, math.min(i + 999, #keys))) end
    return #keys`;
  return Number(await redis.eval(script, 0, `${prefix}:*`));
}
