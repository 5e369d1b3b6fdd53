/**
 * 200 concurrent requests against a budget that allows about 50, from four Redis connections (four
 * API processes): reservations keep the total billed within one request's cost of the cap.
 */
import { randomUUID } from 'node:crypto';
import type { AuthenticatedKey } from '../../../src/auth/authenticated-key';
import { GatewayError, type ErrorKind } from '../../../src/errors/gateway-error';
import { createRedis } from '../../../src/redis/connection';
import { createAdmission, type GatewayAdmission } from '../../../src/limits/create-admission';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { TEST_REDIS_URL } from '../../support/redis';
import { authenticatedKey, seedKey, type SeedOptions } from './admission-fixtures';

const REQUESTS = 200;
const ESTIMATE = 10_000;
const CAP = 50 * ESTIMATE;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('reservations under a race', () => {
  let deps: TestDependencies;
  let connections: ReturnType<typeof createRedis>[];
  let admissions: GatewayAdmission[];

  beforeAll(async () => {
    deps = await createTestDependencies();
    connections = Array.from({ length: 4 }, () => createRedis(TEST_REDIS_URL));
    admissions = connections.map((redis) => createAdmission({ ...deps, redis }));
  });
  afterAll(async () => {
    for (const redis of connections) redis.disconnect();
    await deps.close();
  });

  async function race(key: AuthenticatedKey): Promise<{ billed: number; admitted: number; refusals: Map<ErrorKind, number> }> {
    let billed = 0;
    let admitted = 0;
    const refusals = new Map<ErrorKind, number>();
    await Promise.all(
      Array.from({ length: REQUESTS }, async (_, index) => {
        await pause(Math.random() * 30);
        try {
          const ticket = await admissions[index % admissions.length].admit({
            key,
            clientIp: '127.0.0.1',
            requestId: randomUUID(),
            reserveCredits: ESTIMATE,
            takesLease: true,
          });
          admitted++;
          await pause(Math.random() * 15);
          // The actual cost is within the estimate, as the documented reservation rule intends.
          const actual = ESTIMATE - Math.floor(Math.random() * 2_000);
          await ticket.settle(actual);
          billed += actual;
        } catch (error) {
          if (!(error instanceof GatewayError)) throw error;
          refusals.set(error.kind, (refusals.get(error.kind) ?? 0) + 1);
        }
      }),
    );
    return { billed, admitted, refusals };
  }

  const budgets: [string, SeedOptions, ErrorKind][] = [
    ['lifetime quota', { tier: 'enterprise', concurrencyCap: 1_000, key: { quotaCredits: CAP } }, 'insufficient_balance'],
    ['5h window', { tier: 'enterprise', concurrencyCap: 1_000, key: { rateLimit5h: CAP } }, 'rate_limit'],
    ['wallet', { tier: 'enterprise', concurrencyCap: 1_000, balanceCredits: CAP }, 'insufficient_balance'],
  ];

  it.each(budgets)('%s: billed exceeds the cap by at most one request', async (_name, seed, refusalKind) => {
    const { keyId } = await seedKey(deps, seed);
    const key = await authenticatedKey(deps, keyId);
    const { billed, admitted, refusals } = await race(key);
    expect(billed).toBeLessThanOrEqual(CAP + ESTIMATE);
    expect(admitted).toBeGreaterThanOrEqual(45);
    expect(admitted).toBeLessThan(REQUESTS);
    expect([...refusals.keys()]).toEqual([refusalKind]);
    // The Redis counters agree with what was billed, and no reservation or lease is left behind.
    const figures = await admissions[0].peekFigures(key);
    expect(figures).toMatchObject({ reservedKeyCredits: 0, reservedAccountCredits: 0, leases: 0 });
    if (seed.balanceCredits !== undefined) expect(figures?.walletCredits).toBe(CAP - billed);
    else expect(figures?.spentCredits).toBe(billed);
  });
});
