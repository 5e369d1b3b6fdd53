/** Account concurrency leases: the cap over HTTP, release in every outcome, heartbeat, and a killed process's leases. */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createKeyAuthenticator, type GatewayKeyAuthenticator } from '../../../src/auth/create-key-authenticator';
import { GatewayError } from '../../../src/errors/gateway-error';
import { createAdmission } from '../../../src/limits/create-admission';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { startMiniApp, type MiniApp } from '../../support/mini-app';
import { authenticatedKey, FakeClock, seedKey, withClock } from './admission-fixtures';
import { createProbeRouter } from './probe-router';

const ROOT = path.resolve(__dirname, '../../..');

describe('concurrency leases', () => {
  let deps: TestDependencies;
  let authenticator: GatewayKeyAuthenticator;
  let app: MiniApp;

  beforeAll(async () => {
    deps = await createTestDependencies();
    authenticator = createKeyAuthenticator(deps);
    await authenticator.ready();
    app = await startMiniApp(createProbeRouter(deps, authenticator, createAdmission(deps)));
  });
  afterAll(async () => {
    await app.close();
    await authenticator.close();
    await deps.close();
  });

  it('gives a free account exactly one 429 concurrency_limit out of 6 simultaneous slow streams, then lets calls pass', async () => {
    const { secret } = await seedKey(deps, { tier: 'free', key: { rateLimit5h: 5_000_000 } });
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        fetch(`${app.url}/v1/stream?ticks=15&interval=40`, { headers: { authorization: `Bearer ${secret}` } }),
      ),
    );
    const bodies = await Promise.all(responses.map((response) => response.text()));
    const refused = responses
      .map((response, index) => ({ response, body: bodies[index] }))
      .filter(({ response }) => response.status !== 200);
    expect(refused).toHaveLength(1);
    const [{ response, body }] = refused;
    expect(response.status).toBe(429);
    expect(JSON.parse(body)).toMatchObject({ error: { type: 'rate_limit_error', code: 'concurrency_limit' } });
    expect(response.headers.get('x-ratelimit-reset')).toBeNull();
    expect(response.headers.get('x-ratelimit-limit')).toBe('5');
    expect(response.headers.get('retry-after')).toBe('1');
    for (const [index, ok] of responses.entries()) if (ok.status === 200) expect(bodies[index]).toContain('"tick":14');

    const after = await fetch(`${app.url}/v1/probe`, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body: '{}' });
    expect(after.status).toBe(200);
  });

  it('releases the lease when the request fails', async () => {
    const { secret } = await seedKey(deps, { tier: 'enterprise', concurrencyCap: 1 });
    for (let i = 0; i < 3; i++) {
      const failed = await fetch(`${app.url}/v1/probe`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}` },
        body: JSON.stringify({ fail: true }),
      });
      expect(failed.status).toBe(502);
      expect(failed.headers.get('x-quota-remaining-credits')).toBe('100000000');
    }
    const ok = await fetch(`${app.url}/v1/probe`, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body: '{}' });
    expect(ok.status).toBe(200);
  });

  it('keeps a heartbeating lease and frees a silent one after LEASE_TTL_MS', async () => {
    const clock = new FakeClock(Date.now());
    const admission = createAdmission(withClock(deps, clock));
    const { keyId } = await seedKey(deps, { tier: 'enterprise', concurrencyCap: 1 });
    const key = await authenticatedKey(deps, keyId);
    const admit = () => admission.admit({ key, clientIp: '127.0.0.1', requestId: randomUUID(), reserveCredits: 0, takesLease: true });
    const ttl = deps.config.leaseTtlMs;

    const long = await admit();
    clock.advance(ttl - 1_000);
    await long.heartbeat();
    clock.advance(2_000); // past the first expiry: only the heartbeat keeps it
    await expect(admit()).rejects.toMatchObject({ kind: 'concurrency_limit' });
    clock.advance(ttl); // no heartbeat since: expired
    const next = await admit();
    await next.release();
    await long.release();
  });

  it('frees the leases of a killed process once they expire', async () => {
    const { keyId } = await seedKey(deps, { tier: 'free' });
    // node --import tsx, not the tsx launcher: the launcher runs the script in a grandchild that a
    // SIGKILL of the launcher leaves running (an orphan holding leases forever).
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'lease-holder.ts')], {
      cwd: ROOT,
      env: { ...process.env, ...deps.env, KEY_ID: String(keyId), LEASES: '5' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('held')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`lease holder exited with ${code}: ${stderr}`)));
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    child.stdout.destroy();
    child.stderr.destroy();

    const key = await authenticatedKey(deps, keyId);
    const now = createAdmission(deps);
    const refusal = await now
      .admit({ key, clientIp: '127.0.0.1', requestId: randomUUID(), reserveCredits: 0, takesLease: true })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(GatewayError);
    expect((refusal as GatewayError).kind).toBe('concurrency_limit');

    const later = createAdmission(withClock(deps, new FakeClock(Date.now() + deps.config.leaseTtlMs + 1_000)));
    const ticket = await later.admit({ key, clientIp: '127.0.0.1', requestId: randomUUID(), reserveCredits: 0, takesLease: true });
    // The dead process's reservations went with its leases.
    expect(ticket.figures()).toMatchObject({ leases: 1, reservedAccountCredits: 0 });
    await ticket.release();
  });
});
