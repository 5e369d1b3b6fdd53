/**
 * Issue 22, items 3 and 4: the request log's API through the whole app. The account's listing
 * (newest first, each filter, cursor paging), one request's detail (routing chain, usage and ledger
 * rows), figures per model; another account's requests stay invisible; operators see every account.
 * The usage listing's latency comes from the request record, and `status=error` is accepted.
 */
import { insertApiKey } from '../../../src/keys/insert-api-key';
import { addUpstreamAccount, createAccount, createGroup, findGroupId, topUp } from '../../../src/process/seed';
import { startRequestLogWorker, type RequestLogWorker } from '../../../workers/request-log-worker';
import { startBillingWorker, type BillingWorker } from '../../../workers/billing-worker';
import { eventually } from '../billing/billing-fixtures';
import { startTestGateway, type TestGateway } from '../../support/gateway';
import { consoleLogin } from '../../support/console-login';

jest.setTimeout(90_000);

type Json = Record<string, unknown>;
const MODEL = 'claude-sonnet-4-5';
const BODY = { model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] };

describe('request log API', () => {
  let gateway: TestGateway;
  let worker: RequestLogWorker;
  let billing: BillingWorker;
  let operator: { cookie: string };
  let otherKey: string;
  const ids: { ok: string[]; invalid: string; failed: string; other: string } = { ok: [], invalid: '', failed: '', other: '' };

  const chat = async (key: string, body: unknown = BODY) => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
    await response.text();
    return response.headers.get('x-request-id')!;
  };
  const get = async (path: string, auth: Record<string, string> = { authorization: `Bearer ${gateway.key}` }) => {
    const response = await fetch(`${gateway.url}${path}`, { headers: auth });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const requestIds = (body: Json) => (body.data as Json[]).map((row) => row.request_id);

  beforeAll(async () => {
    gateway = await startTestGateway();
    worker = await startRequestLogWorker(gateway.deps, { lingerMs: 5, blockMs: 200 });
    billing = await startBillingWorker(gateway.deps, { concurrency: 16, blockMs: 200 });
    operator = { cookie: (await consoleLogin(gateway.deps.db, gateway.accountId, 'op@example.test', 'operator')).cookie };

    const otherAccount = await createAccount(gateway.deps.db, { name: 'other', tier: 'pro' });
    await topUp(gateway.deps.db, otherAccount, 1_000_000_000);
    otherKey = (
      await insertApiKey(gateway.deps.db, gateway.deps.crypto, {
        accountId: otherAccount,
        groupId: (await findGroupId(gateway.deps.db, 'default'))!,
        name: 'other',
      })
    ).secret;
    const failingGroup = await createGroup(gateway.deps.db, { name: 'failing', family: null });
    await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
      groupId: failingGroup,
      protocol: 'messages',
      baseUrl: `${gateway.sim.url}/_fault/500`,
      apiKey: 'sim-key',
      models: [MODEL],
    });
    gateway.services.upstreams.invalidate();
    const failingKey = (
      await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: gateway.accountId, groupId: failingGroup, name: 'failing' })
    ).secret;

    for (let index = 0; index < 3; index += 1) ids.ok.push(await chat(gateway.key));
    ids.invalid = await chat(gateway.key, { model: MODEL });
    ids.failed = await chat(failingKey);
    ids.other = await chat(otherKey);
    const all = [...ids.ok, ids.invalid, ids.failed, ids.other];
    await eventually(
      'the final records',
      async () =>
        (await gateway.deps.db.query('SELECT 1 FROM request_records WHERE request_id = ANY($1) AND NOT provisional', [all])).rowCount,
      (count) => count === all.length,
    );
  });
  afterAll(async () => {
    await worker.close();
    await billing.close();
    await gateway.close();
  });

  it("lists the account's requests newest first, filtered, paged by cursor", async () => {
    const all = await get('/api/v1/me/requests');
    expect(all.status).toBe(200);
    expect(requestIds(all.body)).toEqual([ids.failed, ids.invalid, ...[...ids.ok].reverse()]);
    expect((all.body.data as Json[])[0]).toMatchObject({
      object: 'request',
      status: 502,
      outcome: 'error',
      error_class: 'upstream_error',
      protocol: 'chat',
      model: MODEL,
    });

    expect(requestIds((await get('/api/v1/me/requests?status=error')).body)).toEqual([ids.failed, ids.invalid]);
    expect(requestIds((await get('/api/v1/me/requests?status=4xx')).body)).toEqual([ids.invalid]);
    expect(requestIds((await get('/api/v1/me/requests?status=502')).body)).toEqual([ids.failed]);
    expect(requestIds((await get('/api/v1/me/requests?status=ok')).body)).toEqual([...ids.ok].reverse());
    expect(requestIds((await get('/api/v1/me/requests?error_class=invalid_request')).body)).toEqual([ids.invalid]);
    expect(requestIds((await get('/api/v1/me/requests?model=nope')).body)).toEqual([]);
    expect(
      requestIds(
        (await get(`/api/v1/me/requests?protocol=chat&since=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`)).body,
      ),
    ).toHaveLength(5);
    const bad = await get('/api/v1/me/requests?status=teapot');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('status');

    const first = await get('/api/v1/me/requests?limit=2');
    expect(first.body.has_more).toBe(true);
    const second = await get(`/api/v1/me/requests?limit=2&cursor=${String(first.body.next_cursor)}`);
    const third = await get(`/api/v1/me/requests?limit=2&cursor=${String(second.body.next_cursor)}`);
    expect([...requestIds(first.body), ...requestIds(second.body), ...requestIds(third.body)]).toEqual(requestIds(all.body));
    expect(third.body).toMatchObject({ has_more: false, next_cursor: null });
  });

  it("one request: the record with its usage and ledger rows, its routing chain; another account's is a 404", async () => {
    const ok = await eventually(
      'the usage row',
      () => get(`/api/v1/me/requests/${ids.ok[0]!}`),
      (reply) => reply.body.usage !== null,
    );
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ object: 'request', request_id: ids.ok[0], outcome: 'ok', bodies: null });
    expect(ok.body.usage).toMatchObject({ request_id: ids.ok[0], credits: ok.body.cost_credits });
    expect((ok.body.ledger_entries as Json[]).map((entry) => entry.kind)).toEqual(['charge']);

    const failed = await get(`/api/v1/me/requests/${ids.failed}`);
    expect(failed.body).toMatchObject({ outcome: 'error', usage: null, ledger_entries: [] });
    expect(failed.body.routing).toMatchObject({ object: 'routing_decision', outcome: 'refused' });

    expect((await get(`/api/v1/me/requests/${ids.other}`)).status).toBe(404);
    expect(requestIds((await get('/api/v1/me/requests')).body)).not.toContain(ids.other);
  });

  it('figures per model: requests, error rate by class, percentiles, tokens per second', async () => {
    const stats = await get('/api/v1/me/requests/stats?by=model');
    expect(stats.status).toBe(200);
    const model = (stats.body.data as Json[]).find((row) => row.model === MODEL)!;
    expect(model).toMatchObject({ requests: 5, errors: 2, error_rate: 0.4, errors_by_class: { invalid_request: 1, upstream_error: 1 } });
    expect((model.duration_ms as Json).p50).toEqual(expect.any(Number));
    expect(model.output_tokens).toEqual(expect.any(Number));
  });

  it("the usage listing's latency is the request record's; status=error is accepted (failed requests are free: no usage rows)", async () => {
    const usage = await eventually(
      'usage rows with latency',
      () => get('/api/v1/me/usage'),
      (reply) =>
        (reply.body.data as Json[]).length === 3 && (reply.body.data as Json[]).every((row) => typeof row.duration_ms === 'number'),
    );
    const row = (usage.body.data as Json[])[0]!;
    const record = await get(`/api/v1/me/requests/${String(row.request_id)}`);
    expect(row.duration_ms).toBe(record.body.duration_ms);
    expect(row.ttfb_ms).toBe(record.body.ttfb_ms);
    const errors = await get('/api/v1/me/usage?status=error');
    expect(errors.status).toBe(200);
    expect(errors.body.data).toEqual([]);
  });

  it("operators see every account's requests; account holders cannot use the operator view", async () => {
    const all = await get('/api/v1/operator/requests', operator);
    expect(all.status).toBe(200);
    expect(requestIds(all.body)).toContain(ids.other);
    const other = await get(`/api/v1/operator/requests/${ids.other}`, operator);
    expect(other.status).toBe(200);
    const filtered = await get(`/api/v1/operator/requests?account_id=${String(other.body.account_id)}`, operator);
    expect(requestIds(filtered.body)).toEqual([ids.other]);
    const stats = await get('/api/v1/operator/requests/stats?by=upstream_account', operator);
    expect(stats.status).toBe(200);
    expect((stats.body.data as Json[]).length).toBeGreaterThan(0);
    expect((await get('/api/v1/operator/requests')).status).toBe(401);
  });
});
