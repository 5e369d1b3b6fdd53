/**
 * Idempotency-Key on the paid POSTs against real Redis, PostgreSQL, S3 and the simulator: replay
 * (same answer, charged once), body mismatch (422), concurrent duplicates (one task, one hold under
 * 20 simultaneous submits; 409 for an image still being generated), failures let a retry work again,
 * scope per API key, and expiry.
 */
import { startBillingWorker } from '../../../workers/billing-worker';
import { startTaskApi, type TaskApi } from '../tasks/task-api';
import { startTaskHarness, type JsonReply, type TaskHarness } from '../tasks/task-harness';

const VIDEO = { model: 'veo-3', prompt: 'a kite over the sea', duration_seconds: 4, resolution: '720p' };
const IMAGE = { model: 'gpt-image-1', prompt: 'a lighthouse at dusk', size: '1024x1024', n: 1 };

describe('Idempotency-Key on task submit and image generation', () => {
  let h: TaskHarness;
  let billing: { close(): Promise<void> };

  beforeAll(async () => {
    h = await startTaskHarness({ simulator: { imageMs: 600 } });
    billing = await startBillingWorker(h.deps, { concurrency: 2, lingerMs: 1 });
  }, 60_000);
  afterAll(async () => {
    await billing.close();
    await h.close();
  });

  async function post(url: string, body: unknown, idempotencyKey: string, key = h.owner.key): Promise<JsonReply> {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'idempotency-key': idempotencyKey },
      body: JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
  }
  const submit = (body: unknown, idempotencyKey: string, key?: string, api: TaskApi = h.api) =>
    post(`${api.url}/v1/tasks/submit`, body, idempotencyKey, key);
  const generate = (body: unknown, idempotencyKey: string) => post(`${h.api.url}/v1/images/generations`, body, idempotencyKey);

  async function tasksWithPrompt(prompt: string): Promise<string[]> {
    const rows = await h.deps.db.query<{ id: string }>("SELECT id FROM tasks WHERE request->>'prompt' = $1", [prompt]);
    return rows.rows.map((row) => row.id);
  }

  it('replays the first answer of a submit: the same task, one hold on the wallet', async () => {
    const body = { ...VIDEO, prompt: 'replay: a kite over the sea' };
    const before = await h.wallet();
    const first = await submit(body, 'replay-1');
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // Key order and whitespace do not make another request.
    const second = await submit(Object.fromEntries(Object.entries(body).reverse()), 'replay-1');
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('x-quota-remaining-credits')).not.toBeNull();
    expect(await tasksWithPrompt(body.prompt)).toEqual([first.body.task_id]);
    expect(await h.ledger(String(first.body.task_id))).toEqual([{ kind: 'hold', amount_credits: -600_000, reference: first.body.task_id }]);
    expect((await h.wallet()).held - before.held).toBe(600_000);
  });

  it('refuses the same key with another body (422) or on another endpoint, and scopes keys per API key', async () => {
    const body = { ...VIDEO, prompt: 'mismatch: a kite over the sea' };
    const first = await submit(body, 'mismatch-1');
    expect(first.status).toBe(200);
    const other = await submit({ ...body, duration_seconds: 6 }, 'mismatch-1');
    expect(other.status).toBe(422);
    expect(other.body.error).toMatchObject({ type: 'invalid_request_error', param: 'Idempotency-Key' });
    expect(String((other.body.error as { message: string }).message)).toMatch(/already used with a different request/);
    const elsewhere = await generate(IMAGE, 'mismatch-1');
    expect(elsewhere.status).toBe(422);
    // Another API key with the same header value is another request.
    const stranger = await submit(body, 'mismatch-1', h.stranger.key);
    expect(stranger.status).toBe(200);
    expect(stranger.body.task_id).not.toBe(first.body.task_id);
    expect(stranger.headers.get('idempotent-replayed')).toBeNull();
    const bad = await submit(body, 'has space');
    expect(bad.status).toBe(400);
  });

  it('makes exactly one task and one hold out of 20 simultaneous identical submits', async () => {
    const body = { ...VIDEO, prompt: 'concurrent: a kite over the sea' };
    const before = await h.wallet();
    const replies = await Promise.all(Array.from({ length: 20 }, () => submit(body, 'concurrent-1')));
    expect(replies.map((reply) => reply.status)).toEqual(Array(20).fill(200));
    const taskIds = new Set(replies.map((reply) => reply.body.task_id));
    expect(taskIds.size).toBe(1);
    expect(replies.filter((reply) => reply.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    const [taskId] = [...taskIds] as string[];
    expect(await tasksWithPrompt(body.prompt)).toEqual([taskId]);
    expect(await h.ledger(taskId)).toEqual([{ kind: 'hold', amount_credits: -600_000, reference: taskId }]);
    expect((await h.wallet()).held - before.held).toBe(600_000);
  });

  it('lets a retry do the work again after a failed attempt (failures are free and not kept)', async () => {
    const body = { ...VIDEO, prompt: 'failure: a kite over the sea', duration_seconds: 999 };
    const first = await submit(body, 'failure-1');
    expect(first.status).toBe(400);
    const second = await submit(body, 'failure-1');
    expect(second.status).toBe(400);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
  });

  it('replays generated images (the same URLs) and charges once; a duplicate while generating gets 409', async () => {
    const sent = h.sim.requests.filter((entry) => entry.protocol === 'images').length;
    const [first, racing] = await Promise.all([generate(IMAGE, 'images-1'), generate(IMAGE, 'images-1')]);
    const statuses = [first.status, racing.status].sort();
    expect(statuses).toEqual([200, 409]);
    const winner = first.status === 200 ? first : racing;
    const loser = first.status === 200 ? racing : first;
    expect(loser.body.error).toMatchObject({ code: 'conflict', param: 'Idempotency-Key' });
    expect(loser.headers.get('retry-after')).toBe('1');

    const replay = await generate(IMAGE, 'images-1');
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(winner.body);
    expect(h.sim.requests.filter((entry) => entry.protocol === 'images').length - sent).toBe(1);
    expect(await h.api.drainUsage(15_000)).toBe(true);
    const charges = await h.deps.db.query("SELECT count(*)::int AS n FROM usage_rows WHERE protocol = 'images' AND account_id = $1", [
      h.owner.accountId,
    ]);
    expect(charges.rows[0].n).toBe(1);
  });

  it('lives in Redis, not in the process: a retry reaching another API instance gets the first answer', async () => {
    const other = await startTaskApi(h.deps);
    try {
      const body = { ...VIDEO, prompt: 'two processes: a kite over the sea' };
      const first = await submit(body, 'processes-1');
      const elsewhere = await submit(body, 'processes-1', undefined, other);
      expect(elsewhere.status).toBe(200);
      expect(elsewhere.headers.get('idempotent-replayed')).toBe('true');
      expect(elsewhere.body.task_id).toBe(first.body.task_id);
      expect(await tasksWithPrompt(body.prompt)).toEqual([first.body.task_id]);
    } finally {
      await other.close();
    }
  });

  it('forgets a key after its window: the same submit then makes a new task', async () => {
    const shortLived = await startTaskApi({ ...h.deps, config: { ...h.deps.config, idempotencyTtlMs: 1_000 } });
    try {
      const body = { ...VIDEO, prompt: 'expiry: a kite over the sea' };
      const first = await submit(body, 'expiry-1', undefined, shortLived);
      const replay = await submit(body, 'expiry-1', undefined, shortLived);
      expect(replay.body.task_id).toBe(first.body.task_id);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const later = await submit(body, 'expiry-1', undefined, shortLived);
      expect(later.status).toBe(200);
      expect(later.headers.get('idempotent-replayed')).toBeNull();
      expect(later.body.task_id).not.toBe(first.body.task_id);
      expect((await tasksWithPrompt(body.prompt)).sort()).toEqual([first.body.task_id, later.body.task_id].sort());
    } finally {
      await shortLived.close();
    }
  });
});
