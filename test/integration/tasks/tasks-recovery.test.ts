import { Queue } from 'bullmq';
import { startSimulator, type Simulator } from '../../../scripts/provider-sim/server';
import { addUpstreamAccount, createGroup } from '../../../src/process/seed';
import { insertApiKey } from '../../../src/keys/insert-api-key';
import { createRedis } from '../../../src/redis/connection';
import { TASK_QUEUE_NAME } from '../../../src/tasks/task-queue';
import { changeTask } from '../../../src/tasks/change-task';
import { readTaskStream, startTaskHarness, type TaskHarness } from './task-harness';

describe('task recovery: killed workers, lost jobs, deadlines', () => {
  let h: TaskHarness;
  let slowSim: Simulator;
  let slowKey: string;

  beforeAll(async () => {
    h = await startTaskHarness({ simulator: { videoMs: 300 }, env: { TASK_DEADLINE_MS: '6000' }, heartbeatMs: 300 });
    slowSim = await startSimulator({ port: 0, videoMs: 120_000 });
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
    await slowSim.close();
    await h.close();
  });

  async function events(taskId: string): Promise<string[]> {
    const result = await h.deps.db.query<{ status: string }>('SELECT status FROM task_events WHERE task_id = $1 ORDER BY seq', [taskId]);
    return result.rows.map((row) => row.status);
  }

  it.each([
    ['a video task', { model: 'veo-3', prompt: 'survive a crash', duration_seconds: 3 }, 1, 3 * 150_000],
    ['a batch image task', { model: 'gpt-image-1', prompts: ['one', 'two', 'three', 'four'] }, 4, 4 * 40_000],
  ])('finishes %s exactly once after its worker is SIGKILLed mid-task', async (_label, body, objects, credits) => {
    // Worker A stops after the media is in S3 and before the task is finalized: the worst moment.
    const a = await h.spawnWorker({ TASK_TEST_HANG_BEFORE_FINALIZE: '1' });
    const submitted = await h.submit(body);
    const taskId = String(submitted.body.task_id);
    // The harness's 6 s deadline is for the deadline test; on a loaded machine, killing a worker and
    // starting another can take longer, and this test is about recovery, not deadlines.
    await h.deps.db.query("UPDATE tasks SET deadline_at = now() + interval '5 minutes' WHERE id = $1", [taskId]);
    await a.waitForLine(new RegExp(`^HANG ${taskId}$`));
    expect(await h.objectKeys(`tasks/${taskId}/`)).toHaveLength(objects);
    expect((await h.query(taskId)).body.status).toBe('running');
    a.child.kill('SIGKILL');
    await new Promise<void>((resolve) => a.child.once('exit', () => resolve()));

    const b = await h.spawnWorker();
    try {
      const done = await h.waitForStatus(taskId, ['succeeded', 'failed'], 30_000);
      expect(done.status).toBe('succeeded');
      expect((done.result as { urls: string[] }).urls).toHaveLength(objects);
      // One S3 object set, one charge, one usage row, one terminal event.
      expect(await h.objectKeys(`tasks/${taskId}/`)).toHaveLength(objects);
      expect((await h.ledger(taskId)).map((row) => [row.kind, row.amount_credits])).toEqual([
        ['hold', -credits],
        ['hold_release', credits],
        ['charge', -credits],
      ]);
      const usage = await h.deps.db.query('SELECT credits FROM usage_rows WHERE request_id = $1', [taskId]);
      expect(usage.rows).toEqual([{ credits }]);
      expect((await events(taskId)).filter((status) => status === 'succeeded')).toHaveLength(1);
      for (const url of (done.result as { urls: string[] }).urls) expect((await fetch(url)).status).toBe(200);
    } finally {
      await b.stop();
      await a.stop();
    }
  });

  it('gives a task whose job vanished from Redis its job back (the sweeper)', async () => {
    const submitted = await h.submit({ model: 'gpt-image-1', prompts: ['orphan'] });
    const taskId = String(submitted.body.task_id);
    // The job is lost before any worker saw it (e.g. Redis lost its data).
    const connection = createRedis(h.deps.config.redis, { waits: true });
    const queue = new Queue(TASK_QUEUE_NAME, { connection, prefix: h.deps.redisKeys.bullPrefix() });
    expect(await queue.remove(taskId)).toBe(1);
    await queue.close();
    connection.disconnect();
    const worker = await h.spawnWorker({ TASK_TEST_SWEEP_MS: '300', TASK_TEST_SWEEP_STALE_MS: '200' });
    try {
      expect((await h.waitForStatus(taskId, ['succeeded', 'failed'], 20_000)).status).toBe('succeeded');
    } finally {
      await worker.stop();
    }
  });

  it('delivers changes whose publish was lost (a worker killed between COMMIT and PUBLISH) from the database', async () => {
    // No worker runs: the test plays one that commits and dies before publishing.
    const submitted = await h.submit({ model: 'gpt-image-1', prompts: ['unpublished'] });
    const taskId = String(submitted.body.task_id);
    const reading = readTaskStream(`${h.api.url}/v1/tasks/stream/${taskId}`, h.owner.key, { timeoutMs: 15_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await changeTask(h.deps.db, taskId, { from: ['queued'], status: 'running', progress: 0 })).not.toBeNull();
    expect(
      await changeTask(h.deps.db, taskId, {
        from: ['running'],
        status: 'failed',
        error: { code: 'provider_error', message: 'gone' },
        actualCredits: 0,
      }),
    ).not.toBeNull();
    const stream = await reading;
    expect(stream.events.map((event) => [event.id, event.event])).toEqual([
      ['1', 'queued'],
      ['2', 'running'],
      ['3', 'failed'],
    ]);
    expect(stream.ended).toBe(true);
    // The job still in the queue finds the task finished and does nothing.
    const worker = await h.spawnWorker();
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect((await h.query(taskId)).body).toMatchObject({ status: 'failed', error: { code: 'provider_error' } });
      expect(await h.objectKeys(`tasks/${taskId}/`)).toEqual([]);
    } finally {
      await worker.stop();
    }
  });

  it('fails a task that outlives its deadline, releases the hold and cancels the provider operation', async () => {
    const worker = await h.spawnWorker();
    try {
      const before = await h.wallet();
      const submitted = await h.submit({ model: 'veo-3', prompt: 'never finishes in time', duration_seconds: 2 }, slowKey);
      const taskId = String(submitted.body.task_id);
      const done = await h.waitForStatus(taskId, ['succeeded', 'failed'], 20_000, slowKey);
      expect(done).toMatchObject({ status: 'failed', error: { code: 'deadline_exceeded' }, actual_credits: 0 });
      expect((await h.ledger(taskId)).map((row) => row.kind)).toEqual(['hold', 'hold_release']);
      expect(await h.wallet()).toEqual(before);
      expect(slowSim.requests.some((request) => request.path.endsWith(':cancel'))).toBe(true);
      // Polls followed the cadence: a few, not a busy loop.
      const polls = slowSim.requests.filter((request) => request.method === 'GET' && request.path.includes('/operations/')).length;
      expect(polls).toBeGreaterThanOrEqual(2);
      expect(polls).toBeLessThanOrEqual(4);
    } finally {
      await worker.stop();
    }
  });
});
