/**
 * One step of a task, run by whichever worker holds its job. The task's state lives in PostgreSQL,
 * so a step reads it, does the next piece of work, records it, and either finishes or asks to be
 * woken later (a delayed job: no worker slot is held while the provider works).
 *
 * - video: submit to the provider (once: the operation name is stored), then one poll per step on
 *   the interface cadence, then copy the media to S3 under deterministic keys and finalize.
 * - image_batch: render each prompt (results saved as they come, so a retry skips done prompts;
 *   object keys are deterministic, so a redone prompt overwrites instead of adding), then finalize.
 */
import { computeImageCost, computeVideoCost } from '../src/billing/compute-cost';
import type { CatalogModel } from '../src/catalog/model';
import { GatewayError } from '../src/errors/gateway-error';
import { generateImages } from '../src/images/generate-images';
import { billedQuality } from '../src/images/image-call-plan';
import type { ImageGeneration } from '../src/images/image-generation';
import { routeMediaModel } from '../src/images/resolve-media-model';
import { extensionForMediaType } from '../src/images/sniff-image-type';
import { storeImages } from '../src/images/store-images';
import type { TaskMedia, TaskRow } from '../src/tasks/task-record';
import type { ImageBatchTaskRequest, VideoTaskRequest } from '../src/tasks/task-request';
import { findTask } from '../src/db/repositories/tasks';
import { isTerminalStatus } from '../src/tasks/task-status';
import type { UpstreamAccount } from '../src/upstream/upstream-account';
import { toUpstreamError } from '../src/upstream/upstream-client';
import type { TaskContext } from './task-context';
import { applyAndPublish, failTask, succeedTask } from './task-settlement';

/** What the step asks of the queue: done with the job, or wake it again after a delay. */
export type StepOutcome = { kind: 'done' } | { kind: 'wait'; delayMs: number };

const DONE: StepOutcome = { kind: 'done' };
/** Prompts of a batch rendered at once. */
const BATCH_PARALLELISM = 4;

function modelOf(context: TaskContext, task: TaskRow): CatalogModel {
  const model = context.deps.catalog.find(task.model);
  if (!model) throw new GatewayError('unsupported_model', `model ${task.model} left the catalog`);
  return model;
}

async function cancelAtProvider(context: TaskContext, task: TaskRow): Promise<void> {
  if (!task.provider_ref || task.upstream_account_id === null || task.request.kind !== 'video') return;
  const account = await accountById(context, task).catch(() => undefined);
  if (!account) return;
  await context.video
    .cancel(account, task.provider_ref)
    .catch((error: unknown) =>
      context.deps.logger.warn({ err: error, taskId: task.id }, 'provider cancel failed; the operation is abandoned'),
    );
}

async function accountById(context: TaskContext, task: TaskRow): Promise<UpstreamAccount | undefined> {
  const accounts = await context.images.upstreams.accountsOfGroup(task.request.group.groupId);
  return accounts.find((account) => account.id === task.upstream_account_id);
}

function nextPoll(context: TaskContext, task: TaskRow): StepOutcome {
  const now = context.deps.clock.now();
  const started = task.started_at?.getTime() ?? now;
  const delay = context.pollDelayMs(now - started);
  // Never sleep past the deadline: the step that wakes then fails the task.
  return { kind: 'wait', delayMs: Math.max(0, Math.min(delay, task.deadline_at.getTime() - now)) };
}

async function videoStep(context: TaskContext, task: TaskRow, request: VideoTaskRequest): Promise<StepOutcome> {
  const model = modelOf(context, task);
  if (!task.provider_ref) {
    const accounts = await routeMediaModel(context.images.upstreams, request.group, model);
    let lastError: GatewayError | undefined;
    for (const account of accounts.slice(0, Math.max(1, context.deps.config.upstream.maxAttempts))) {
      let operation: string;
      try {
        operation = await context.video.submit(account, model, request);
      } catch (thrown) {
        const error = toUpstreamError(thrown);
        context.deps.metrics.upstreamFailures.inc({
          protocol: account.protocol,
          reason: error.upstream ? String(error.upstream.status) : error.kind,
        });
        if (!error.retryable) throw error;
        context.images.upstreams.cooldown(account.id, context.deps.config.upstream.cooldownMs);
        lastError = error;
        continue;
      }
      // Running from the moment the provider works on it; the operation name is what a retry resumes from.
      const saved = await applyAndPublish(context, task.id, {
        from: ['queued', 'running'],
        status: 'running',
        progress: 0,
        providerRef: operation,
        upstreamAccountId: account.id,
        silent: task.status === 'running',
      });
      if (!saved) {
        // Cancelled (or finished elsewhere) while we were submitting: stop the provider's work too.
        await context.video.cancel(account, operation).catch(() => undefined);
        return DONE;
      }
      return nextPoll(context, saved.row);
    }
    throw lastError ?? new GatewayError('no_available_account', `no available account serves model ${model.id}`);
  }

  const account = await accountById(context, task);
  if (!account) {
    await failTask(context, task, { code: 'provider_error', message: 'the upstream account running this task is no longer available' });
    return DONE;
  }
  const state = await context.video.poll(account, task.provider_ref);
  if (state.state === 'running') {
    if (state.progress !== undefined && state.progress !== task.progress && state.progress < 100) {
      const updated = await applyAndPublish(context, task.id, { from: ['running'], status: 'running', progress: state.progress });
      if (!updated) return DONE;
    }
    return nextPoll(context, task);
  }
  if (state.state === 'failed') {
    await failTask(context, task, { code: state.code, message: state.message });
    return DONE;
  }
  const items: TaskMedia[] = [];
  for (const [index, produced] of state.videos.entries()) {
    const media = await context.video.open(account, produced);
    const key = `tasks/${task.id}/video-${index}.${extensionForMediaType(media.contentType)}`;
    // Streamed from the provider into S3, never held whole in memory.
    await context.deps.storage.put(key, media.body, media.contentType);
    items.push({ key, url: await context.deps.storage.presign(key), contentType: media.contentType });
  }
  await context.hooks.beforeFinalize?.(task.id);
  await succeedTask(context, task, {
    items,
    credits: computeVideoCost(model.prices, request.resolution, request.durationSeconds),
    upstreamAccountId: account.id,
    images: 0,
    videoSeconds: request.durationSeconds,
  });
  return DONE;
}

async function imageBatchStep(context: TaskContext, task: TaskRow, request: ImageBatchTaskRequest): Promise<StepOutcome> {
  const model = modelOf(context, task);
  const accounts = await routeMediaModel(context.images.upstreams, request.group, model);
  const items: TaskMedia[] = [...(task.result?.items ?? [])];
  const done = new Set(items.map((item) => item.promptIndex));
  const remaining = request.prompts.map((prompt, index) => ({ prompt, index })).filter(({ index }) => !done.has(index));
  let lastAccount: number | null = task.upstream_account_id;
  let stopped = false;
  // Saves are serialized so each one carries every result so far.
  let saving: Promise<void> = Promise.resolve();

  const render = async ({ prompt, index }: { prompt: string; index: number }) => {
    if (stopped) return;
    const generation: ImageGeneration = {
      model,
      prompt,
      size: request.size,
      n: request.n,
      ...(request.quality !== undefined ? { quality: request.quality } : {}),
      ...(request.style !== undefined ? { style: request.style } : {}),
      ...(request.outputFormat !== undefined ? { outputFormat: request.outputFormat } : {}),
      ...(request.outputCompression !== undefined ? { outputCompression: request.outputCompression } : {}),
      ...(request.background !== undefined ? { background: request.background } : {}),
    };
    const outcome = await generateImages(context.images, accounts, generation);
    const stored = await storeImages(
      context.deps.storage,
      outcome.images,
      (image, extension) => `tasks/${task.id}/image-${index}-${image}.${extension}`,
    );
    lastAccount = outcome.account.id;
    for (const [image, entry] of stored.entries()) {
      items.push({
        key: entry.key,
        url: entry.url,
        contentType: entry.mediaType,
        bytes: entry.bytes,
        promptIndex: index,
        imageIndex: image,
        ...(entry.revisedPrompt !== undefined ? { revisedPrompt: entry.revisedPrompt } : {}),
      });
    }
    const snapshot = [...items];
    const rendered = new Set(snapshot.map((item) => item.promptIndex)).size;
    saving = saving.then(async () => {
      if (stopped) return;
      // The last prompt's save is kept quiet: the succeeded event follows at once.
      const saved = await applyAndPublish(context, task.id, {
        from: ['running'],
        status: 'running',
        progress: Math.floor((rendered / request.prompts.length) * 100),
        result: { items: snapshot },
        upstreamAccountId: lastAccount,
        providerRef: null,
        silent: rendered === request.prompts.length,
      });
      // Cancelled meanwhile: the prompts not started yet are skipped.
      if (!saved) stopped = true;
    });
    await saving;
  };

  const queue = [...remaining];
  let failure: unknown;
  let overdue = false;
  await Promise.all(
    Array.from({ length: Math.min(BATCH_PARALLELISM, queue.length) }, async () => {
      for (let next = queue.shift(); next !== undefined && !stopped && failure === undefined; next = queue.shift()) {
        if (context.deps.clock.now() >= task.deadline_at.getTime()) {
          overdue = true;
          break;
        }
        try {
          await render(next);
        } catch (error) {
          // Let the renders in flight finish and be saved, then report the first failure.
          failure ??= error;
        }
      }
    }),
  );
  await saving;
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- the first render failure, rethrown as it was caught
  if (failure !== undefined) throw failure;
  if (stopped) return DONE;
  if (overdue) {
    await failTask(context, task, { code: 'deadline_exceeded', message: 'the task did not finish before its deadline' });
    return DONE;
  }
  items.sort((a, b) => (a.promptIndex ?? 0) - (b.promptIndex ?? 0) || (a.imageIndex ?? 0) - (b.imageIndex ?? 0));
  await context.hooks.beforeFinalize?.(task.id);
  await succeedTask(context, task, {
    items,
    credits: computeImageCost(model.prices, request.size, billedQuality(request.quality), items.length),
    upstreamAccountId: lastAccount,
    images: items.length,
    videoSeconds: 0,
  });
  return DONE;
}

/** Runs the next step of a task; throws on failures worth a retry (the caller decides when to give up). */
export async function runTaskStep(context: TaskContext, taskId: string): Promise<StepOutcome> {
  let task = await findTask<TaskRow>(context.deps.db, taskId);
  if (!task) return DONE;
  if (task.status === 'cancelled') {
    await cancelAtProvider(context, task);
    return DONE;
  }
  if (isTerminalStatus(task.status)) return DONE;
  if (context.deps.clock.now() >= task.deadline_at.getTime()) {
    await cancelAtProvider(context, task);
    await failTask(context, task, { code: 'deadline_exceeded', message: 'the task did not finish before its deadline' });
    return DONE;
  }
  const request = task.request;
  // A queued video becomes running once the provider accepted it (one change instead of two).
  if (task.status === 'queued' && request.kind !== 'video') {
    const started = await applyAndPublish(context, task.id, { from: ['queued'], status: 'running', progress: 0 });
    if (!started) return runTaskStep(context, taskId);
    task = started.row;
  }
  return request.kind === 'video' ? videoStep(context, task, request) : imageBatchStep(context, task, request);
}
