import { startSimulator, type Simulator } from '../../../scripts/provider-sim/server';
import { addUpstreamAccount, createAccount, createGroup, topUp } from '../../../src/process/seed';
import { insertApiKey } from '../../../src/keys/insert-api-key';
import { readTaskStream, startTaskHarness, type ChildHandle, type TaskHarness } from './task-harness';

const PNG_SIGNATURE = '89504e470d0a1a0a';

function statuses(events: Array<{ event?: string }>): string[] {
  return events.map((event) => event.event ?? '');
}

describe('async tasks with workers as separate processes', () => {
  let h: TaskHarness;
  let worker: ChildHandle;
  let slowSim: Simulator;
  let slowKey: string;

  beforeAll(async () => {
    h = await startTaskHarness({ simulator: { videoMs: 1_000 }, heartbeatMs: 300 });
    worker = await h.spawnWorker();
    // A provider whose videos take a minute, for cancels that must reach a running operation.
    slowSim = await startSimulator({ port: 0, videoMs: 60_000 });
    const slowGroup = await createGroup(h.deps.db, { name: 'slow-video', family: null });
    await addUpstreamAccount(h.deps.db, h.deps.crypto, {
      groupId: slowGroup,
      protocol: 'generate-content',
      baseUrl: slowSim.url,
      apiKey: 'sim-key',
      models: ['veo-3'],
    });
    slowKey = (await insertApiKey(h.deps.db, h.deps.crypto, { accountId: h.owner.accountId, groupId: slowGroup, name: 'slow' })).secret;
  }, 60_000);
  afterAll(async () => {
    await worker.stop();
    await slowSim.close();
    await h.close();
  });

  async function cachedWallet(): Promise<number | null> {
    const value = await h.deps.redis.hget(h.deps.redisKeys.account(h.owner.accountId), 'wallet');
    return value === null ? null : Number(value);
  }

  it('runs a video task from submit to succeeded, followed over SSE, media in S3, hold then charge', async () => {
    const before = await h.wallet();
    const submitted = await h.submit({
      model: 'veo-3',
      prompt: '一只在雨中奔跑的柴犬，电影感',
      duration_seconds: 4,
      resolution: '720p',
      aspect_ratio: '16:9',
    });
    expect(submitted.status).toBe(200);
    const taskId = String(submitted.body.task_id);
    expect(taskId).toMatch(/^task_[A-Za-z0-9]{32}$/);
    expect(submitted.body).toMatchObject({ status: 'queued', estimated_credits: 600_000 });
    expect(submitted.headers.get('x-quota-remaining-credits')).not.toBeNull();

    const stream = await readTaskStream(`${h.api.url}/v1/tasks/stream/${taskId}`, h.owner.key);
    expect(stream.status).toBe(200);
    expect(stream.ended).toBe(true);
    // The first event is the state at connection time; then every change, in order, once each.
    const names = statuses(stream.events);
    expect(['queued,running,succeeded', 'running,succeeded']).toContain(names.join(','));
    const ids = stream.events.map((event) => Number(event.id));
    expect(ids).toEqual(ids.map((_, index) => ids[0] + index));
    expect(stream.comments).toBeGreaterThan(0);

    const final = JSON.parse(stream.events.at(-1)!.data) as {
      result: { urls: string[]; items: Array<{ content_type: string }> };
      actual_credits: number;
      progress: number;
    };
    expect(final.progress).toBe(100);
    expect(final.actual_credits).toBe(600_000);
    expect(final.result.items[0].content_type).toBe('video/mp4');
    const media = await fetch(final.result.urls[0]);
    expect(media.status).toBe(200);
    expect(media.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await media.arrayBuffer());
    expect(bytes.toString('latin1', 4, 8)).toBe('ftyp');

    // Replaying from the start shows every state in order.
    const replay = await readTaskStream(`${h.api.url}/v1/tasks/stream/${taskId}`, h.owner.key, { lastEventId: '0' });
    expect(statuses(replay.events)).toEqual(['queued', 'running', 'succeeded']);
    expect(replay.events.map((event) => event.id)).toEqual(['1', '2', '3']);

    expect(await h.ledger(taskId)).toEqual([
      { kind: 'hold', amount_credits: -600_000, reference: taskId },
      { kind: 'hold_release', amount_credits: 600_000, reference: taskId },
      { kind: 'charge', amount_credits: -600_000, reference: taskId },
    ]);
    expect(await h.wallet()).toEqual({ balance: before.balance - 600_000, held: 0 });
    // The wallet cache of admission saw the hold at submit and nothing more: it equals the ledger.
    expect(await cachedWallet()).toBe(before.balance - 600_000);
    const usage = await h.deps.db.query('SELECT video_seconds, credits, model, protocol FROM usage_rows WHERE request_id = $1', [taskId]);
    expect(usage.rows).toEqual([{ video_seconds: 4, credits: 600_000, model: 'veo-3', protocol: 'tasks' }]);
    expect(await h.objectKeys(`tasks/${taskId}/`)).toEqual([`tasks/${taskId}/video-0.mp4`]);

    const queried = await h.query(taskId);
    expect(queried.body).toMatchObject({
      task_id: taskId,
      status: 'succeeded',
      kind: 'video',
      model: 'veo-3',
      estimated_credits: 600_000,
      actual_credits: 600_000,
      error: null,
    });
    expect(typeof queried.body.started_at).toBe('number');
    expect(typeof queried.body.finished_at).toBe('number');
    // The provider saw the request in its own shape.
    const sent = h.sim.requests.find((request) => request.path.endsWith('veo-3:predictLongRunning'));
    expect(sent?.body).toMatchObject({
      instances: [{ prompt: '一只在雨中奔跑的柴犬，电影感' }],
      parameters: { durationSeconds: 4, resolution: '720p', aspectRatio: '16:9' },
    });
  });

  it('starts a video from an initial image', async () => {
    const image = await h.post(`${h.api.url}/v1/images/generations`, { model: 'gpt-image-1', prompt: 'first frame' });
    const png = Buffer.from(await (await fetch((image.body.data as Array<{ url: string }>)[0].url)).arrayBuffer());
    const submitted = await h.submit({
      model: 'veo-3',
      prompt: 'animate it',
      duration_seconds: 2,
      image: `data:image/png;base64,${png.toString('base64')}`,
    });
    expect(submitted.status).toBe(200);
    const done = await h.waitForStatus(String(submitted.body.task_id), ['succeeded', 'failed']);
    expect(done.status).toBe('succeeded');
    const sent = h.sim.requests.filter((request) => request.path.endsWith('veo-3:predictLongRunning')).at(-1);
    expect(sent?.body).toMatchObject({ instances: [{ prompt: 'animate it', image: { mimeType: 'image/png' } }] });
  });

  it('renders a batch of 4 prompts into 4 URLs, with progress events', async () => {
    const submitted = await h.submit({ model: 'gpt-image-1', prompts: ['a cat', 'a dog', 'a fox', 'an owl'], quality: 'low' });
    expect(submitted.status).toBe(200);
    const taskId = String(submitted.body.task_id);
    const replay = await readTaskStream(`${h.api.url}/v1/tasks/stream/${taskId}`, h.owner.key, { lastEventId: '0' });
    const names = statuses(replay.events);
    expect(names[0]).toBe('queued');
    expect(names.at(-1)).toBe('succeeded');
    const progress = replay.events.map((event) => (JSON.parse(event.data) as { progress: number }).progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress).toEqual(expect.arrayContaining([25, 50, 75, 100]));
    const final = JSON.parse(replay.events.at(-1)!.data) as {
      result: { urls: string[]; items: Array<{ prompt_index: number; revised_prompt: string }> };
      actual_credits: number;
    };
    expect(final.result.urls).toHaveLength(4);
    expect(final.result.items.map((item) => [item.prompt_index, item.revised_prompt])).toEqual([
      [0, 'Revised: a cat'],
      [1, 'Revised: a dog'],
      [2, 'Revised: a fox'],
      [3, 'Revised: an owl'],
    ]);
    for (const url of final.result.urls) {
      const bytes = Buffer.from(await (await fetch(url)).arrayBuffer());
      expect(bytes.subarray(0, 8).toString('hex')).toBe(PNG_SIGNATURE);
    }
    expect(await h.objectKeys(`tasks/${taskId}/`)).toHaveLength(4);
    expect(final.actual_credits).toBe(4 * 40_000);
    expect((await h.ledger(taskId)).map((row) => [row.kind, row.amount_credits])).toEqual([
      ['hold', -160_000],
      ['hold_release', 160_000],
      ['charge', -160_000],
    ]);
  });

  it('fails on a provider failure: reason recorded, hold released, no charge', async () => {
    const before = await h.wallet();
    const cachedBefore = await cachedWallet();
    const submitted = await h.submit({ model: 'veo-3', prompt: 'please FAIL_VIDEO now', duration_seconds: 2 });
    const taskId = String(submitted.body.task_id);
    const stream = await readTaskStream(`${h.api.url}/v1/tasks/stream/${taskId}`, h.owner.key);
    expect(statuses(stream.events).at(-1)).toBe('failed');
    const task = await h.query(taskId);
    expect(task.body).toMatchObject({ status: 'failed', actual_credits: 0, result: null });
    expect(task.body.error).toEqual({ code: 'provider_error', message: expect.stringContaining('could not be generated') });
    expect((await h.ledger(taskId)).map((row) => row.kind)).toEqual(['hold', 'hold_release']);
    expect(await h.wallet()).toEqual(before);
    // The released hold went back to the wallet cache too.
    expect(await cachedWallet()).toBe(cachedBefore);
    const usage = await h.deps.db.query('SELECT 1 FROM usage_rows WHERE request_id = $1', [taskId]);
    expect(usage.rowCount).toBe(0);
  });

  it('fails a filtered video as content_filtered', async () => {
    const submitted = await h.submit({ model: 'veo-3', prompt: 'FILTER_VIDEO please', duration_seconds: 2 });
    const task = await h.waitForStatus(String(submitted.body.task_id), ['failed', 'succeeded']);
    expect(task.error).toMatchObject({ code: 'content_filtered' });
  });

  it('cancels a running task: the provider operation is cancelled, the hold released, final; a second cancel is a 409', async () => {
    const before = await h.wallet();
    const submitted = await h.submit({ model: 'veo-3', prompt: 'a long take', duration_seconds: 8 }, slowKey);
    const taskId = String(submitted.body.task_id);
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const row = await h.deps.db.query<{ status: string; provider_ref: string | null }>(
        'SELECT status, provider_ref FROM tasks WHERE id = $1',
        [taskId],
      );
      if (row.rows[0].status === 'running' && row.rows[0].provider_ref) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const cancelled = await h.post(`${h.api.url}/v1/tasks/cancel`, { task_id: taskId }, slowKey);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', actual_credits: 0, error: { code: 'cancelled' } });
    expect(
      slowSim.requests.some((request) => request.method === 'POST' && request.path.endsWith(':cancel') && request.status === 200),
    ).toBe(true);
    expect((await h.ledger(taskId)).map((row) => row.kind)).toEqual(['hold', 'hold_release']);
    expect(await h.wallet()).toEqual(before);

    const again = await h.post(`${h.api.url}/v1/tasks/cancel`, { task_id: taskId }, slowKey);
    expect(again.status).toBe(409);
    expect((again.body.error as { message: string }).message).toContain('already cancelled');
    // The worker wakes for its next poll, finds the task cancelled and stops: the state stays final.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await h.query(taskId, slowKey)).body.status).toBe('cancelled');
    const stream = await readTaskStream(`${h.api.url}/v1/tasks/stream/${taskId}`, slowKey);
    expect(statuses(stream.events)).toEqual(['cancelled']);
    expect(stream.ended).toBe(true);
  });

  it('cancels a queued task and refuses to cancel a finished one', async () => {
    const submitted = await h.submit({ model: 'veo-3', prompt: 'short', duration_seconds: 1 });
    const taskId = String(submitted.body.task_id);
    const cancelled = await h.post(`${h.api.url}/v1/tasks/cancel`, { task_id: taskId });
    // It may already be running; either way it ends cancelled and free.
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    const finished = await h.submit({ model: 'gpt-image-1', prompts: ['x'] });
    await h.waitForStatus(String(finished.body.task_id), ['succeeded']);
    const conflict = await h.post(`${h.api.url}/v1/tasks/cancel`, { task_id: finished.body.task_id });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining('already succeeded') });
  });

  it('hides a task from another account: query, cancel and stream are 404', async () => {
    const submitted = await h.submit({ model: 'gpt-image-1', prompts: ['mine'] });
    const taskId = String(submitted.body.task_id);
    const query = await h.query(taskId, h.stranger.key);
    expect(query.status).toBe(404);
    const cancel = await h.post(`${h.api.url}/v1/tasks/cancel`, { task_id: taskId }, h.stranger.key);
    expect(cancel.status).toBe(404);
    const stream = await readTaskStream(`${h.api.url}/v1/tasks/stream/${taskId}`, h.stranger.key);
    expect(stream.status).toBe(404);
    expect((await h.query('task_' + 'x'.repeat(32))).status).toBe(404);
    expect((await h.query(taskId)).status).toBe(200);
    await h.waitForStatus(taskId, ['succeeded']);
  });

  it('validates submissions with errors naming the field, and charges nothing for them', async () => {
    const cases: Array<[unknown, number, string]> = [
      [{ model: 'veo-3', prompt: 'x', duration_seconds: 9 }, 400, 'duration_seconds'],
      [{ model: 'veo-3', prompt: 'x', resolution: '4k' }, 400, 'resolution'],
      [{ model: 'veo-3', prompt: 'x', aspect_ratio: '4:3' }, 400, 'aspect_ratio'],
      [{ model: 'veo-3' }, 400, 'prompt'],
      [{ model: 'gpt-image-1', prompts: [] }, 400, 'prompts'],
      [{ model: 'gpt-4.1', prompt: 'x' }, 400, 'model'],
      [{ model: 'veo-9', prompt: 'x' }, 400, 'model'],
    ];
    const before = await h.wallet();
    for (const [body, status, param] of cases) {
      const reply = await h.submit(body);
      expect([reply.status, (reply.body.error as { param?: string }).param]).toEqual([status, param]);
    }
    expect(await h.wallet()).toEqual(before);
    const missing = await h.post(`${h.api.url}/v1/tasks/query`, {});
    expect(missing.status).toBe(400);
  });

  it('resumes a stream with Last-Event-ID without losing or repeating a change', async () => {
    // A video takes a couple of seconds, so the first event is never the last one.
    const submitted = await h.submit({ model: 'veo-3', prompt: 'resume me', duration_seconds: 1 });
    const taskId = String(submitted.body.task_id);
    // Read the first event only, then drop the connection: the changes after it happen unseen.
    const first = await readTaskStream(`${h.api.url}/v1/tasks/stream/${taskId}`, h.owner.key, { stopWhen: (events) => events.length >= 1 });
    // The last event read: two events can arrive in one chunk, and the client has seen both.
    const lastId = first.events.at(-1)!.id!;
    expect(['queued', 'running']).toContain(first.events[0].event);
    const rest = await readTaskStream(`${h.api.url}/v1/tasks/stream/${taskId}`, h.owner.key, { lastEventId: lastId });
    const all = [...first.events, ...rest.events].map((event) => Number(event.id));
    expect(all).toEqual(all.map((_, index) => all[0] + index));
    expect(statuses(rest.events).at(-1)).toBe('succeeded');
    // Resuming from the terminal event ends at once with nothing to send.
    const after = await readTaskStream(`${h.api.url}/v1/tasks/stream/${taskId}`, h.owner.key, { lastEventId: rest.events.at(-1)!.id });
    expect(after.events).toEqual([]);
    expect(after.ended).toBe(true);
  });

  it('streams on another API process than the one that accepted the submit', async () => {
    const other = await h.spawnApi();
    try {
      const submitted = await h.submit({ model: 'veo-3', prompt: 'cross-process', duration_seconds: 2 });
      const taskId = String(submitted.body.task_id);
      const stream = await readTaskStream(`${other.url}/v1/tasks/stream/${taskId}`, h.owner.key);
      expect(stream.status).toBe(200);
      expect(statuses(stream.events).at(-1)).toBe('succeeded');
      expect(stream.ended).toBe(true);
      const query = await h.post(`${other.url}/v1/tasks/query`, { task_id: taskId });
      expect(query.body.status).toBe('succeeded');
    } finally {
      await other.stop();
    }
  });

  it('keeps query and cancel free of admission: they work while the account is at its concurrency cap', async () => {
    const accountId = await createAccount(h.deps.db, { name: 'capped', tier: 'free' });
    await topUp(h.deps.db, accountId, 10_000_000, 'topup-capped');
    const key = (await insertApiKey(h.deps.db, h.deps.crypto, { accountId, groupId: h.groupId, name: 'capped' })).secret;
    const own = await h.submit({ model: 'gpt-image-1', prompts: ['mine'] }, key);
    const taskId = String(own.body.task_id);
    await h.waitForStatus(taskId, ['succeeded'], 15_000, key);
    // Five requests of the account in flight fill the free tier's cap.
    const leases = h.deps.redisKeys.accountLeases(accountId);
    for (let i = 0; i < 5; i++) await h.deps.redis.zadd(leases, Date.now() + 60_000, `req_busy_${i}`);
    const refused = await h.submit({ model: 'gpt-image-1', prompts: ['x'] }, key);
    expect([refused.status, (refused.body.error as { code: string } | undefined)?.code]).toEqual([429, 'concurrency_limit']);
    expect((await h.query(taskId, key)).status).toBe(200);
    expect((await h.post(`${h.api.url}/v1/tasks/cancel`, { task_id: taskId }, key)).status).toBe(409);
    const stream = await readTaskStream(`${h.api.url}/v1/tasks/stream/${taskId}`, key);
    expect(statuses(stream.events)).toEqual(['succeeded']);
    expect(await h.deps.redis.zcard(leases)).toBe(5);
  });

  it('leaves every wallet equal to the sum of its ledger, each entry with the right balance after, no hold open', async () => {
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const active = await h.deps.db.query(
        "SELECT 1 FROM tasks WHERE status IN ('queued', 'running') AND id NOT IN (SELECT id FROM tasks WHERE request->'group'->>'groupName' = 'slow-video')",
      );
      if (active.rowCount === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const accounts = await h.deps.db.query<{ id: number; balance_credits: number; held_credits: number }>(
      'SELECT id, balance_credits, held_credits FROM accounts',
    );
    for (const account of accounts.rows) {
      const entries = await h.deps.db.query<{ kind: string; amount_credits: number; balance_after: number }>(
        'SELECT kind, amount_credits, balance_after FROM ledger_entries WHERE account_id = $1 ORDER BY id',
        [account.id],
      );
      let running = 0;
      let held = 0;
      for (const entry of entries.rows) {
        running += entry.amount_credits;
        expect(entry.balance_after).toBe(running);
        if (entry.kind === 'hold') held -= entry.amount_credits;
        if (entry.kind === 'hold_release') held -= entry.amount_credits;
      }
      expect(account.balance_credits).toBe(running);
      expect(account.held_credits).toBe(held);
    }
    const open = await h.deps.db.query(
      "SELECT count(*)::int AS n FROM tasks t WHERE status IN ('succeeded', 'failed', 'cancelled') AND estimated_credits > 0 AND NOT EXISTS (SELECT 1 FROM ledger_entries l WHERE l.kind = 'hold_release' AND l.reference = t.id)",
    );
    expect(open.rows[0].n).toBe(0);
  });
});
