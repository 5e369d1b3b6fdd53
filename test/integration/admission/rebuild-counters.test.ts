/** Counters rebuilt from PostgreSQL when Redis lost them, and on demand (the billing reconciler). */
import { randomUUID } from 'node:crypto';
import type { AuthenticatedKey } from '../../../src/auth/authenticated-key';
import { applyLedgerEntry } from '../../../src/db/repositories/ledger';
import { createAdmission, type GatewayAdmission } from '../../../src/limits/create-admission';
import { rebuildAccountCounters } from '../../../src/limits/rebuild-counters';
import { createWalletCache } from '../../../src/limits/wallet-cache';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { authenticatedKey, FakeClock, minuteAlignedStart, seedKey, withClock } from './admission-fixtures';

const HOUR = 3_600_000;

describe('rebuilding counters from PostgreSQL', () => {
  let deps: TestDependencies;
  let clock: FakeClock;
  let admission: GatewayAdmission;

  beforeAll(async () => {
    deps = await createTestDependencies();
    clock = new FakeClock(minuteAlignedStart());
    admission = createAdmission(withClock(deps, clock));
  });
  afterAll(async () => {
    await deps.close();
  });

  /** What the billing worker does for a settled request (usage row, key spend, ledger charge), done by hand here. */
  async function bill(key: AuthenticatedKey, credits: number, atMs: number): Promise<void> {
    const ticket = await admission.admit({ key, clientIp: '127.0.0.1', requestId: randomUUID(), reserveCredits: 0, takesLease: true });
    await ticket.settle(credits);
    const client = await deps.db.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO usage_rows (request_id, account_id, api_key_id, model, protocol, credits, started_at)
        VALUES ($1, $2, $3, 'gpt-5', 'chat', $4, $5)`,
        [ticket.requestId, key.accountId, key.keyId, credits, new Date(atMs)],
      );
      await client.query('UPDATE api_keys SET spent_credits = spent_credits + $2 WHERE id = $1', [key.keyId, credits]);
      await applyLedgerEntry(client, {
        accountId: key.accountId,
        kind: 'charge',
        amountCredits: -credits,
        reference: ticket.requestId,
        apiKeyId: key.keyId,
      });
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  }

  async function flushRedis(): Promise<void> {
    const found = await deps.redis.keys(`${deps.testRedis.prefix}:*`);
    if (found.length > 0) await deps.redis.del(...found);
  }

  it('reloads lost counters on the next admission with the same figures', async () => {
    const { keyId } = await seedKey(deps, {
      balanceCredits: 1_000_000,
      key: { rateLimit5h: 500_000, rateLimit1d: 800_000, quotaCredits: 900_000 },
    });
    const key = await authenticatedKey(deps, keyId);
    await bill(key, 100_000, clock.ms);
    clock.advance(6 * HOUR); // the first spend has left the 5h window, not the 1d one
    await bill(key, 50_000, clock.ms);
    const before = await admission.peekFigures(key);
    expect(before).toMatchObject({
      walletCredits: 850_000,
      spentCredits: 150_000,
      windows: { '5h': { used: 50_000 }, '1d': { used: 150_000 }, '7d': { used: 150_000 } },
    });

    await flushRedis();
    const after = await admission.peekFigures(key);
    expect(after).toEqual(before);
    expect(await admission.peekHeaders(key)).toMatchObject({ 'X-RateLimit-Remaining': '0.45', 'X-Quota-Remaining-Credits': '750000' });
  });

  it('replaces drifted counters but keeps the reservations of requests in flight', async () => {
    const { keyId, accountId } = await seedKey(deps, { balanceCredits: 1_000_000, key: { rateLimit5h: 200_000 } });
    const key = await authenticatedKey(deps, keyId);
    await bill(key, 100_000, clock.ms);
    const inFlight = await admission.admit({
      key,
      clientIp: '127.0.0.1',
      requestId: randomUUID(),
      reserveCredits: 100_000,
      takesLease: true,
    });
    await deps.redis.hset(deps.redisKeys.account(accountId), 'wallet', 1);
    await deps.redis.hset(deps.redisKeys.apiKey(accountId, keyId), 'spent', 7, 'w5h', 0);

    await rebuildAccountCounters(withClock(deps, clock), accountId);
    expect(await admission.peekFigures(key)).toMatchObject({
      walletCredits: 900_000,
      spentCredits: 100_000,
      reservedKeyCredits: 100_000,
      leases: 1,
      windows: { '5h': { used: 100_000 } },
    });
    // 200,000 limit − 100,000 settled − 100,000 in flight: no room.
    await expect(
      admission.admit({ key, clientIp: '127.0.0.1', requestId: randomUUID(), reserveCredits: 1, takesLease: true }),
    ).rejects.toMatchObject({ kind: 'rate_limit' });
    await inFlight.release();
  });

  it('rebuilds a key that can no longer be used as dead in Redis', async () => {
    const { keyId } = await seedKey(deps, {});
    const key = await authenticatedKey(deps, keyId);
    await deps.db.query("UPDATE api_keys SET status = 'revoked' WHERE id = $1", [keyId]);
    await flushRedis();
    await expect(
      admission.admit({ key, clientIp: '127.0.0.1', requestId: randomUUID(), reserveCredits: 0, takesLease: true }),
    ).rejects.toMatchObject({ kind: 'authentication', status: 401 });
  });

  it('keeps the wallet cache in step with top-ups made elsewhere, only when loaded', async () => {
    const { accountId, keyId } = await seedKey(deps, { balanceCredits: 1_000 });
    const key = await authenticatedKey(deps, keyId);
    const wallet = createWalletCache(deps);
    expect(await wallet.adjust(accountId, 5_000)).toBeNull();
    expect((await admission.peekFigures(key))?.walletCredits).toBe(1_000);
    expect(await wallet.adjust(accountId, 5_000)).toBe(6_000);
    expect((await admission.peekFigures(key))?.walletCredits).toBe(6_000);
  });
});
