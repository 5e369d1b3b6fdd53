/**
 * Admission against a Redis that stops answering (a failover's first moments): the request is
 * refused 503 `unavailable` after REQUEST_REDIS_DEADLINE_MS, well before the 1 s command timeout,
 * so a refusal reaches the client within a second. The Redis is a server of the test's own, paused
 * with CLIENT PAUSE (the shared one is never touched).
 */
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { GatewayError } from '../../../src/errors/gateway-error';
import { createAdmission } from '../../../src/limits/create-admission';
import { createRedis, REQUEST_COMMAND_TIMEOUT_MS, REQUEST_REDIS_DEADLINE_MS } from '../../../src/redis/connection';
import { startOwnRedis, type OwnRedis } from '../../chaos/chaos-harness';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { authenticatedKey, seedKey } from './admission-fixtures';

describe('admission deadline', () => {
  let deps: TestDependencies;
  let own: OwnRedis;
  let redis: Redis;
  let control: Redis;

  beforeAll(async () => {
    deps = await createTestDependencies();
    own = await startOwnRedis();
    redis = createRedis(own.url);
    control = new Redis(own.url);
  });
  afterAll(async () => {
    redis.disconnect();
    control.disconnect();
    await own.kill();
    await deps.close();
  });

  it('a Redis that stops answering gets the request refused 503 after the deadline, not the command timeout', async () => {
    expect(REQUEST_REDIS_DEADLINE_MS).toBeLessThan(REQUEST_COMMAND_TIMEOUT_MS);
    const admission = createAdmission({ ...deps, redis });
    const { keyId } = await seedKey(deps);
    const key = await authenticatedKey(deps, keyId);
    const admit = () => admission.admit({ key, clientIp: '127.0.0.1', requestId: randomUUID(), reserveCredits: 100, takesLease: true });
    // Counters loaded and the script cached: the next admission is one round trip.
    await (await admit()).release();

    await control.call('CLIENT', 'PAUSE', '3000', 'ALL');
    const startedAt = performance.now();
    const refusal = await admit().then(
      () => undefined,
      (error: unknown) => error,
    );
    const tookMs = performance.now() - startedAt;
    expect(refusal).toBeInstanceOf(GatewayError);
    expect((refusal as GatewayError).kind).toBe('unavailable');
    expect(tookMs).toBeGreaterThanOrEqual(REQUEST_REDIS_DEADLINE_MS - 50);
    expect(tookMs).toBeLessThan(REQUEST_COMMAND_TIMEOUT_MS - 150);
  });
});
