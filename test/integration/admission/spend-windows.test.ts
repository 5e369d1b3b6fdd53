/** Rolling 5h / 1d / 7d windows, lifetime quota and wallet, on real Redis and PostgreSQL, with a movable clock. */
import { randomUUID } from 'node:crypto';
import type { AuthenticatedKey } from '../../../src/auth/authenticated-key';
import { GatewayError } from '../../../src/errors/gateway-error';
import { createAdmission, type GatewayAdmission } from '../../../src/limits/create-admission';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { authenticatedKey, FakeClock, minuteAlignedStart, seedKey, withClock } from './admission-fixtures';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('spend windows, quota and wallet', () => {
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

  async function spend(key: AuthenticatedKey, credits: number): Promise<Record<string, string>> {
    const ticket = await admission.admit({ key, clientIp: '127.0.0.1', requestId: randomUUID(), reserveCredits: 0, takesLease: true });
    return ticket.settle(credits);
  }

  async function refusal(key: AuthenticatedKey, reserveCredits = 0): Promise<GatewayError> {
    const error = await admission.admit({ key, clientIp: '127.0.0.1', requestId: randomUUID(), reserveCredits, takesLease: true }).then(
      () => {
        throw new Error('admitted, expected a refusal');
      },
      (thrown: unknown) => thrown,
    );
    if (!(error instanceof GatewayError)) throw error;
    return error;
  }

  it('refuses a 5h window with 429 naming the bucket, used, limit and the reset, and reopens exactly then', async () => {
    const start = clock.ms;
    const { keyId } = await seedKey(deps, { key: { rateLimit5h: 30_000 } });
    const key = await authenticatedKey(deps, keyId);
    await spend(key, 20_000);
    clock.advance(HOUR);
    await spend(key, 10_000);
    clock.advance(MINUTE);

    const error = await refusal(key);
    const firstBucketLeavesAt = (Math.floor(start / MINUTE) + 300) * MINUTE;
    expect(error.status).toBe(429);
    expect(error.kind).toBe('rate_limit');
    expect(error.message).toContain('rate_limit_5h');
    expect(error.message).toContain('used $0.03 of $0.03');
    expect(error.message).toContain(new Date(firstBucketLeavesAt).toISOString());
    expect(error.headers).toMatchObject({
      'X-RateLimit-Limit': '0.03',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(firstBucketLeavesAt / 1000),
    });
    expect(error.retryAfterSeconds).toBe(Math.ceil((firstBucketLeavesAt - clock.ms) / 1000));

    clock.ms = firstBucketLeavesAt - 1_000;
    expect((await refusal(key)).kind).toBe('rate_limit');

    clock.ms = firstBucketLeavesAt;
    const ticket = await admission.admit({ key, clientIp: '127.0.0.1', requestId: randomUUID(), reserveCredits: 0, takesLease: true });
    // Only the second spend (10,000) is still inside the window; its bucket is the next to leave.
    expect(ticket.headers()).toMatchObject({ 'X-RateLimit-Limit': '0.03', 'X-RateLimit-Remaining': '0.02' });
    expect(Number(ticket.headers()['X-RateLimit-Reset'])).toBe((Math.floor((start + HOUR) / MINUTE) + 300) * 60);
    await ticket.release();
  });

  it('keeps the 1d window independent of the 5h one', async () => {
    const start = clock.ms;
    const { keyId } = await seedKey(deps, { key: { rateLimit1d: 30_000 } });
    const key = await authenticatedKey(deps, keyId);
    await spend(key, 20_000);
    clock.advance(6 * HOUR);
    await spend(key, 10_000);
    const error = await refusal(key);
    expect(error.status).toBe(429);
    expect(error.message).toContain('rate_limit_1d');
    expect(error.headers?.['X-RateLimit-Reset']).toBe(String((Math.floor(start / MINUTE) + 1440) * 60));
    clock.ms = (Math.floor(start / MINUTE) + 1440) * MINUTE;
    await spend(key, 0);
  });

  it('keeps the 7d window independent too', async () => {
    const start = clock.ms;
    const { keyId } = await seedKey(deps, { key: { rateLimit7d: 30_000, rateLimit1d: 1_000_000 } });
    const key = await authenticatedKey(deps, keyId);
    await spend(key, 20_000);
    clock.advance(2 * DAY);
    await spend(key, 10_000);
    const error = await refusal(key);
    expect(error.message).toContain('rate_limit_7d');
    expect(error.headers?.['X-RateLimit-Reset']).toBe(String((Math.floor(start / MINUTE) + 10_080) * 60));
    clock.ms = (Math.floor(start / MINUTE) + 10_080) * MINUTE;
    const headers = await spend(key, 1_000);
    expect(headers).toMatchObject({ 'X-RateLimit-Limit': '0.03', 'X-RateLimit-Remaining': '0.019' });
  });

  it('names the window that frees last when several are exhausted', async () => {
    const { keyId } = await seedKey(deps, { key: { rateLimit5h: 10_000, rateLimit1d: 10_000 } });
    const key = await authenticatedKey(deps, keyId);
    await spend(key, 10_000);
    expect((await refusal(key)).message).toContain('rate_limit_1d');
  });

  it('counts open reservations against the window', async () => {
    const { keyId } = await seedKey(deps, { key: { rateLimit5h: 30_000 } });
    const key = await authenticatedKey(deps, keyId);
    const first = await admission.admit({ key, clientIp: '127.0.0.1', requestId: randomUUID(), reserveCredits: 30_000, takesLease: true });
    const error = await refusal(key);
    expect(error.message).toContain('plus $0.03 in flight');
    expect(Number(error.headers?.['X-RateLimit-Reset'])).toBe(Math.ceil((clock.ms + deps.config.leaseTtlMs) / 1000));
    await first.release();
    await spend(key, 0);
  });

  it('refuses an exhausted lifetime quota with 402, independent of the windows', async () => {
    const { keyId } = await seedKey(deps, { key: { quotaCredits: 25_000, rateLimit5h: 1_000_000 } });
    const key = await authenticatedKey(deps, keyId);
    expect(await spend(key, 20_000)).toMatchObject({ 'X-Quota-Remaining-Credits': '5000' });
    // 5,000 left > 0: admitted, and this one overruns (by at most one request's cost).
    await spend(key, 10_000);
    const error = await refusal(key);
    expect(error.status).toBe(402);
    expect(error.kind).toBe('insufficient_balance');
    expect(error.message).toContain('quota exhausted: spent $0.03 of $0.025');
    expect(error.headers).toMatchObject({ 'X-Quota-Remaining-Credits': '0', 'X-RateLimit-Remaining': '0.97' });
  });

  it('refuses an empty wallet with 402 and reports the organisation wallet on organisation keys', async () => {
    const { keyId } = await seedKey(deps, { organization: true, balanceCredits: 15_000 });
    const key = await authenticatedKey(deps, keyId);
    expect(await spend(key, 20_000)).toEqual({ 'X-Quota-Remaining-Credits': '0', 'X-Org-Quota-Remaining-Credits': '0' });
    const error = await refusal(key);
    expect(error.status).toBe(402);
    expect(error.message).toContain('organization wallet');
    expect(error.headers).toEqual({ 'X-Quota-Remaining-Credits': '0', 'X-Org-Quota-Remaining-Credits': '0' });
  });

  it('reports the tightest bucket in the headers', async () => {
    const { keyId } = await seedKey(deps, { key: { rateLimit5h: 1_000_000, rateLimit1d: 600_000, rateLimit7d: 5_000_000 } });
    const key = await authenticatedKey(deps, keyId);
    const headers = await spend(key, 500_000);
    expect(headers).toMatchObject({ 'X-RateLimit-Limit': '0.6', 'X-RateLimit-Remaining': '0.1' });
    expect(Number(headers['X-RateLimit-Reset'])).toBe((Math.floor(clock.ms / MINUTE) + 1440) * 60);
  });

  it('leaves every figure unchanged after a failed (released) request', async () => {
    const { keyId } = await seedKey(deps, { key: { rateLimit5h: 1_000_000, quotaCredits: 2_000_000 } });
    const key = await authenticatedKey(deps, keyId);
    await spend(key, 100_000);
    const before = await admission.peekHeaders(key);
    const ticket = await admission.admit({
      key,
      clientIp: '127.0.0.1',
      requestId: randomUUID(),
      reserveCredits: 400_000,
      takesLease: true,
    });
    expect(ticket.headers()).toEqual(before);
    await ticket.release();
    expect(await admission.peekHeaders(key)).toEqual(before);
    expect(before).toMatchObject({ 'X-RateLimit-Remaining': '0.9', 'X-Quota-Remaining-Credits': '1900000' });
  });

  it('settles once: a second settle or a release after it changes nothing', async () => {
    const { keyId } = await seedKey(deps, {});
    const key = await authenticatedKey(deps, keyId);
    const ticket = await admission.admit({ key, clientIp: '127.0.0.1', requestId: randomUUID(), reserveCredits: 0, takesLease: true });
    const first = await ticket.settle(1_000);
    expect(await ticket.settle(5_000)).toEqual(first);
    await ticket.release();
    expect((await admission.peekFigures(key))?.spentCredits).toBe(1_000);
  });

  it('adds the Messages x-ratelimit family when the surface is Messages', async () => {
    const { keyId } = await seedKey(deps, { tier: 'free' });
    const key = await authenticatedKey(deps, keyId);
    const ticket = await admission.admit({
      key,
      clientIp: '127.0.0.1',
      requestId: randomUUID(),
      reserveCredits: 0,
      takesLease: true,
      surface: 'messages',
    });
    expect(ticket.headers()).toMatchObject({ 'x-ratelimit-limit-requests': '5', 'x-ratelimit-remaining-requests': '4' });
    expect(await ticket.settle(0)).toMatchObject({ 'x-ratelimit-remaining-requests': '5' });
    expect(await admission.peekHeaders(key)).not.toHaveProperty('x-ratelimit-limit-requests');
  });
});
