/**
 * Alerts and webhooks (issue 22 item 5) on real PostgreSQL, Redis and BullMQ workers, against a local
 * receiver: a rule fires once per crossing and is re-armed when its figure goes back; its webhook
 * arrives signed (HMAC-SHA256 of the timestamp and body) and is retried (the first attempt fails,
 * the retry succeeds), with every attempt in the delivery log; the test button sends a signed test
 * event; the error-rate rule reads the request log (`request_records`).
 */
import { verifyWebhookSignature } from '../../../src/alerts/webhook-signature';
import { insertApiKey } from '../../../src/keys/insert-api-key';
import { createAccount } from '../../../src/process/seed';
import { startWebhookWorker } from '../../../workers/webhook-worker';
import { startTestGateway, type TestGateway } from '../../support/gateway';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';

type Json = Record<string, any>;

const SECRET = 'receiver-secret-0123456789';

describe('alerts and webhooks', () => {
  let gateway: TestGateway;
  let receiver: WebhookReceiver;
  let worker: Awaited<ReturnType<typeof startWebhookWorker>>;

  async function call(method: string, path: string, body?: unknown, key = gateway.key): Promise<{ status: number; body: Json }> {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Json };
  }

  const setBalance = (usd: number) =>
    gateway.deps.db.query('UPDATE accounts SET balance_credits = $2 WHERE id = $1', [gateway.accountId, usd * 1_000_000]);

  async function deliveries(): Promise<Json[]> {
    return (await call('GET', '/api/v1/me/webhook-deliveries')).body.data as Json[];
  }

  async function waitForDelivery(id: number, status: string): Promise<Json> {
    for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
      const found = (await deliveries()).find((d) => d.id === id);
      if (found?.status === status) return found;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`delivery ${id} never became ${status}`);
  }

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_BACKOFF_MS: '100', WEBHOOK_MAX_ATTEMPTS: '3' } });
    receiver = await startWebhookReceiver();
    worker = await startWebhookWorker(gateway.deps, { evaluateEveryMs: 0 });
  }, 60_000);

  afterAll(async () => {
    await worker.close();
    await receiver.close();
    await gateway.close();
  });

  it('fires a wallet alert once per crossing; its webhook arrives signed and is retried (first attempt fails, retry succeeds)', async () => {
    const webhook = await call('POST', '/api/v1/me/webhooks', { url: receiver.url, events: ['alert.wallet_below'], secret: SECRET });
    expect(webhook.status).toBe(201);
    expect(webhook.body).toMatchObject({
      object: 'webhook',
      secret: SECRET,
      secret_last4: SECRET.slice(-4),
      events: ['alert.wallet_below'],
      active: true,
    });
    const rule = await call('POST', '/api/v1/me/alerts', { kind: 'wallet_below', amount: 50 });
    expect(rule.status).toBe(201);
    expect(rule.body).toMatchObject({ object: 'alert_rule', kind: 'wallet_below', amount: 50, state: 'ok' });

    expect((await worker.evaluate()).fired).toEqual([]); // 100 USD: above the amount

    await setBalance(40);
    receiver.script([500]);
    const first = await worker.evaluate();
    expect(first.fired).toEqual([rule.body.id]);
    expect(first.deliveryIds).toHaveLength(1);
    expect((await worker.evaluate()).fired).toEqual([]); // still below: once per crossing

    const [failed, retried] = await receiver.waitFor(2);
    expect(failed!.status).toBe(500);
    expect(retried!.status).toBe(200);
    expect(retried!.body).toBe(failed!.body);
    const signature = String(retried!.headers['webhook-signature']);
    expect(verifyWebhookSignature(SECRET, signature, retried!.body)).toBe(true);
    expect(verifyWebhookSignature('another-secret-0123456789', signature, retried!.body)).toBe(false);
    expect(verifyWebhookSignature(SECRET, signature, retried!.body.replace('40', '41'))).toBe(false);
    expect(Number(/^t=(\d+),/.exec(signature)![1])).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(retried!.headers['webhook-event']).toBe('alert.wallet_below');
    const payload = JSON.parse(retried!.body) as Json;
    expect(payload).toMatchObject({
      type: 'alert.wallet_below',
      data: { account_id: gateway.accountId, value: 40, rule: { id: rule.body.id, state: 'firing' } },
    });

    const logged = await waitForDelivery(first.deliveryIds[0]!, 'delivered');
    expect(logged).toMatchObject({ event: 'alert.wallet_below', attempts: 2, last_http_status: 200, alert_rule_id: rule.body.id });
    expect((await call('GET', '/api/v1/me/alerts')).body.data).toEqual([
      expect.objectContaining({ id: rule.body.id, state: 'firing', last_value: 40 }),
    ]);

    // Back above: re-armed, no delivery; below again: fires again.
    await setBalance(60);
    expect(await worker.evaluate()).toMatchObject({ fired: [], rearmed: [rule.body.id] });
    await setBalance(30);
    expect((await worker.evaluate()).fired).toEqual([rule.body.id]);
    await receiver.waitFor(3);
    expect(JSON.parse(receiver.calls[2]!.body)).toMatchObject({ type: 'alert.wallet_below', data: { value: 30 } });
    await call('DELETE', `/api/v1/me/alerts/${rule.body.id}`);
    await call('DELETE', `/api/v1/me/webhooks/${webhook.body.id}`);
  }, 60_000);

  it('a delivery the receiver keeps refusing is retried up to WEBHOOK_MAX_ATTEMPTS, then logged as failed', async () => {
    const before = receiver.calls.length;
    const webhook = await call('POST', '/api/v1/me/webhooks', { url: receiver.url });
    receiver.script([503, 503, 503]);
    const test = await call('POST', `/api/v1/me/webhooks/${webhook.body.id}/test`);
    expect(test.status).toBe(202);
    const logged = await waitForDelivery(test.body.id as number, 'failed');
    expect(logged).toMatchObject({ attempts: 3, last_http_status: 503, last_error: 'the receiver answered HTTP 503' });
    expect(receiver.calls.length - before).toBe(3);
    await call('DELETE', `/api/v1/me/webhooks/${webhook.body.id}`);
  }, 60_000);

  it('the test button sends a signed webhook.test event with the generated secret', async () => {
    const webhook = await call('POST', '/api/v1/me/webhooks', { url: receiver.url });
    const secret = String(webhook.body.secret);
    expect(secret).toMatch(/^whsec_/);
    expect((await call('GET', `/api/v1/me/webhooks/${webhook.body.id}`)).body).not.toHaveProperty('secret');
    const before = receiver.calls.length;
    const test = await call('POST', `/api/v1/me/webhooks/${webhook.body.id}/test`);
    const [received] = (await receiver.waitFor(before + 1)).slice(before);
    expect(JSON.parse(received!.body)).toMatchObject({ type: 'webhook.test', data: { webhook_id: webhook.body.id } });
    expect(verifyWebhookSignature(secret, String(received!.headers['webhook-signature']), received!.body)).toBe(true);
    expect(await waitForDelivery(test.body.id as number, 'delivered')).toMatchObject({ attempts: 1, event: 'webhook.test' });
    await call('DELETE', `/api/v1/me/webhooks/${webhook.body.id}`);
  }, 60_000);

  it('key quota and error rate rules fire from the settled figures and the request log, once per crossing', async () => {
    const before = receiver.calls.length;
    const webhook = await call('POST', '/api/v1/me/webhooks', { url: receiver.url, events: ['alert.key_quota', 'alert.error_rate'] });
    const keyId = Number(
      (
        await gateway.deps.db.query<{ id: string }>('SELECT id FROM api_keys WHERE account_id = $1 ORDER BY id LIMIT 1', [
          gateway.accountId,
        ])
      ).rows[0]!.id,
    );
    await gateway.deps.db.query('UPDATE api_keys SET quota_credits = 10000000, spent_credits = 7000000 WHERE id = $1', [keyId]);
    const quota = await call('POST', '/api/v1/me/alerts', { kind: 'key_quota', api_key_id: keyId, threshold: 0.8 });
    const errors = await call('POST', '/api/v1/me/alerts', { kind: 'error_rate', threshold: 0.5, window_minutes: 10, min_requests: 4 });
    expect(errors.body).toMatchObject({ window_minutes: 10, min_requests: 4, threshold: 0.5 });
    const record = (outcome: string, n: number) =>
      gateway.deps.db.query(
        `INSERT INTO request_records (request_id, account_id, protocol, status, outcome, duration_ms, created_at) SELECT 'r' || gen_random_uuid(), $1, 'chat', CASE $2 WHEN 'ok' THEN 200 WHEN 'aborted' THEN 499 ELSE 502 END, $2, 10, now() FROM generate_series(1, $3)`,
        [gateway.accountId, outcome, n],
      );
    await record('ok', 4);
    await record('aborted', 2);
    expect((await worker.evaluate()).fired).toEqual([]);

    await gateway.deps.db.query('UPDATE api_keys SET spent_credits = 8500000 WHERE id = $1', [keyId]);
    await record('error', 3); // 3 errors of 9 requests: below one half
    expect((await worker.evaluate()).fired).toEqual([quota.body.id]);
    await record('error', 3); // 6 errors of 12 requests: one half
    const fired = await worker.evaluate();
    expect(fired.fired).toEqual([errors.body.id]);
    expect((await worker.evaluate()).fired).toEqual([]);
    const bodies = (await receiver.waitFor(before + 2)).slice(before).map((c) => JSON.parse(c.body) as Json);
    expect(bodies.map((b) => b.type).sort()).toEqual(['alert.error_rate', 'alert.key_quota']);
    expect(bodies.find((b) => b.type === 'alert.key_quota')!.data.value).toBeCloseTo(0.85);
    expect(bodies.find((b) => b.type === 'alert.error_rate')!.data.value).toBeCloseTo(0.5);
    await call('DELETE', `/api/v1/me/webhooks/${webhook.body.id}`);
  }, 60_000);

  it('a spend-window rule fires from the settled usage in its window and re-arms when the charges leave it', async () => {
    const keyId = Number(
      (
        await gateway.deps.db.query<{ id: string }>('SELECT id FROM api_keys WHERE account_id = $1 ORDER BY id LIMIT 1', [
          gateway.accountId,
        ])
      ).rows[0]!.id,
    );
    await gateway.deps.db.query('UPDATE api_keys SET rate_limit_5h = 10000000 WHERE id = $1', [keyId]);
    const rule = await call('POST', '/api/v1/me/alerts', { kind: 'key_spend_window', api_key_id: keyId, window: '5h', threshold: 0.5 });
    expect(rule.body).toMatchObject({ window: '5h', threshold: 0.5, event: 'alert.key_spend_window' });
    const charge = (requestId: string, credits: number, hoursAgo: number) =>
      gateway.deps.db.query(
        `INSERT INTO usage_rows (request_id, account_id, api_key_id, model, protocol, credits, started_at)
       VALUES ($1, $2, $3, 'gpt-4.1', 'chat', $4, now() - make_interval(hours => $5))`,
        [requestId, gateway.accountId, keyId, credits, hoursAgo],
      );
    await charge('window-old', 6_000_000, 6); // outside the 5 h window
    await charge('window-1', 2_000_000, 1);
    expect((await worker.evaluate()).fired).not.toContain(rule.body.id);
    await charge('window-2', 3_000_000, 0);
    expect((await worker.evaluate()).fired).toContain(rule.body.id);
    expect((await worker.evaluate()).fired).not.toContain(rule.body.id);
    await gateway.deps.db.query("UPDATE usage_rows SET started_at = now() - interval '6 hours' WHERE request_id = 'window-2'");
    expect((await worker.evaluate()).rearmed).toContain(rule.body.id);
    await call('DELETE', `/api/v1/me/alerts/${rule.body.id}`);
  });

  it('refuses bad rules and bad webhooks with a 400 naming the field; unknown ids answer 404', async () => {
    expect((await call('POST', '/api/v1/me/alerts', { kind: 'key_quota', api_key_id: 999999, threshold: 0.5 })).body.error).toMatchObject({
      param: 'api_key_id',
    });
    expect((await call('POST', '/api/v1/me/alerts', { kind: 'error_rate', threshold: 2 })).status).toBe(400);
    expect((await call('POST', '/api/v1/me/alerts', { kind: 'nope' })).status).toBe(400);
    expect((await call('POST', '/api/v1/me/webhooks', { url: 'ftp://example.test/x' })).body.error).toMatchObject({ param: 'url' });
    expect((await call('POST', '/api/v1/me/webhooks', { url: receiver.url, secret: 'short' })).body.error).toMatchObject({
      param: 'secret',
    });
    expect((await call('POST', '/api/v1/me/webhooks/999999/test')).status).toBe(404);
    expect((await call('DELETE', '/api/v1/me/alerts/999999')).status).toBe(404);
  });

  it("another account sees none of this account's rules, webhooks or deliveries", async () => {
    const webhook = await call('POST', '/api/v1/me/webhooks', { url: receiver.url });
    const rule = await call('POST', '/api/v1/me/alerts', { kind: 'wallet_below', amount: 1 });
    await call('POST', `/api/v1/me/webhooks/${webhook.body.id}/test`);
    const otherAccount = await createAccount(gateway.deps.db, { name: 'other', tier: 'pro' });
    const groupId = Number(
      (await gateway.deps.db.query<{ id: string }>("SELECT id FROM routing_groups WHERE name = 'default'")).rows[0]!.id,
    );
    const other = (await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: otherAccount, groupId, name: 'other' })).secret;
    expect((await call('GET', `/api/v1/me/webhooks/${webhook.body.id}`, undefined, other)).status).toBe(404);
    expect((await call('PATCH', `/api/v1/me/webhooks/${webhook.body.id}`, { active: false }, other)).status).toBe(404);
    expect((await call('POST', `/api/v1/me/webhooks/${webhook.body.id}/test`, undefined, other)).status).toBe(404);
    expect((await call('DELETE', `/api/v1/me/alerts/${rule.body.id}`, undefined, other)).status).toBe(404);
    expect((await call('GET', '/api/v1/me/webhooks', undefined, other)).body.data).toEqual([]);
    expect((await call('GET', '/api/v1/me/alerts', undefined, other)).body.data).toEqual([]);
    expect((await call('GET', '/api/v1/me/webhook-deliveries', undefined, other)).body.data).toEqual([]);
    expect((await call('GET', `/api/v1/me/webhooks/${webhook.body.id}`)).body).toMatchObject({ active: true });
  });
});
