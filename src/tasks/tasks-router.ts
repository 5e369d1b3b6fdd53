/**
 * The task endpoints (interface 4.6): submit (counted: admission, the estimate held on the wallet,
 * a row in PostgreSQL and a BullMQ job), query and cancel (free, not counted, no lease), and the
 * SSE stream of state changes. Another account's task is a 404, never a 403.
 */
import { Router, type Request, type Response } from 'express';
import type { AuthenticatedKey } from '../auth/authenticated-key';
import { assertModelAllowed } from '../auth/model-allowlist';
import { runPaidCall, type CallEnding, type PaidCallServices } from '../billing/run-paid-call';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import { createIdempotentRoute } from '../idempotency/idempotent-route';
import { jsonBody } from '../http/json-body';
import { locals } from '../http/request-context';
import { newRequestId } from '../http/request-id';
import { createCallerAuthentication, type CallerAuthentication } from '../auth/authenticate-caller';
import { routeMediaModel } from '../images/resolve-media-model';
import { parseTaskSubmission, type TaskSubmission } from './parse-task-submission';
import { createWalletCache, type WalletCache } from '../limits/wallet-cache';
import { withPeekedHeaders } from '../limits/with-peeked-headers';
import { commitTaskChange } from './commit-task-change';
import { createTaskEventHub, type TaskEventHub } from './task-event-hub';
import { createTaskQueue, type TaskQueue } from './task-queue';
import { toTaskView, type TaskRow } from './task-record';
import { findAccountTask } from '../db/repositories/tasks';
import { insertTask } from './insert-task';
import type { TaskServices } from './task-services';
import { looksLikeTaskId, newTaskId } from './task-id';
import { parseLastEventId, streamTaskEvents } from './stream-task-events';
import { createVideoOperations, type VideoOperations } from './video-operations';

export interface TasksRouterOptions {
  /** SSE heartbeat period (default `config.streamKeepaliveMs`). */
  heartbeatMs?: number;
}

function taskIdFrom(body: unknown): string {
  const value = body !== null && typeof body === 'object' ? (body as { task_id?: unknown }).task_id : undefined;
  if (typeof value !== 'string' || value === '') throw new GatewayError('invalid_request', 'task_id: required', { param: 'task_id' });
  return value;
}

function notFound(taskId: string): GatewayError {
  return new GatewayError('not_found', `task ${taskId} not found`, { param: 'task_id' });
}

/** The task routes of one router: the caller's authentication, the queue, the event hub and the provider operations they share. */
class TaskRoutes {
  readonly caller: CallerAuthentication;
  private readonly queue: TaskQueue;
  private readonly hub: TaskEventHub;
  private readonly video: VideoOperations;
  private readonly wallet: WalletCache;
  private readonly paid: PaidCallServices;

  constructor(
    private readonly deps: Dependencies,
    private readonly services: TaskServices,
    private readonly options: TasksRouterOptions,
  ) {
    this.caller = createCallerAuthentication(services.authenticator, deps.config.trustedProxies);
    this.queue = createTaskQueue(deps);
    this.hub = createTaskEventHub(deps.subscriber, deps.redisKeys);
    this.video = createVideoOperations(services.upstreamClient, { pollTimeoutMs: deps.config.upstream.firstByteTimeoutMs });
    this.wallet = createWalletCache(deps);
    this.paid = { admission: services.admission, usage: services.usage, logger: deps.logger };
  }

  readonly submit = async (req: Request, res: Response): Promise<void> => {
    const key = await this.caller.authenticate(req);
    const requestId = locals(res).requestId ?? newRequestId();
    const submission = await withPeekedHeaders(this.services.admission, key, res, async () => {
      const parsed = parseTaskSubmission(
        this.deps.catalog,
        req.body,
        { groupId: key.groupId, groupName: key.groupName, groupFamily: key.groupFamily },
        { maxImageBytes: this.deps.config.imageFetch.maxBytes },
      );
      assertModelAllowed(key, parsed.model.id);
      await routeMediaModel(this.services.upstreams, key, parsed.model);
      return parsed;
    });
    const admission = {
      key,
      clientIp: this.caller.clientIp(req),
      requestId,
      reserveCredits: submission.estimatedCredits,
      takesLease: true,
    };
    await runPaidCall(
      this.paid,
      admission,
      () => this.insertSubmitted(key, submission, res),
      (admitted) => {
        locals(res).accountingHeaders = admitted.headers();
      },
    );
  };

  readonly query = async (req: Request, res: Response): Promise<void> => {
    const key = await this.freeCall(req, res);
    const row = await this.accountTask(key, taskIdFrom(req.body));
    res.json(toTaskView(row));
  };

  readonly cancel = async (req: Request, res: Response): Promise<void> => {
    const key = await this.freeCall(req, res);
    const taskId = taskIdFrom(req.body);
    if (!looksLikeTaskId(taskId)) throw notFound(taskId);
    const outcome = await commitTaskChange(
      { ...this.deps, wallet: this.wallet },
      taskId,
      {
        from: ['queued', 'running'],
        status: 'cancelled',
        actualCredits: 0,
        error: { code: 'cancelled', message: 'cancelled by the caller' },
      },
      { accountId: key.accountId },
    );
    if (!outcome) {
      const row = await this.accountTask(key, taskId);
      throw new GatewayError('conflict', `task ${taskId} is already ${row.status} and cannot be cancelled`, { param: 'task_id' });
    }
    await this.cancelAtProvider(outcome.row, taskId);
    res.json(toTaskView(outcome.row));
  };

  readonly stream = async (req: Request, res: Response): Promise<void> => {
    const key = await this.freeCall(req, res);
    const row = await this.accountTask(key, String(req.params.taskId));
    await streamTaskEvents(res, {
      db: this.deps.db,
      hub: this.hub,
      logger: this.deps.logger,
      task: row,
      lastEventId: parseLastEventId(req.headers['last-event-id'] ?? req.query.last_event_id),
      heartbeatMs: this.options.heartbeatMs ?? this.deps.config.streamKeepaliveMs,
      onKeyInvalidated: (listener) => this.services.authenticator.onInvalidated(key.secretHmac, listener),
    });
  };

  async close(): Promise<void> {
    this.hub.close();
    await this.queue.close();
  }

  /**
   * The admitted submit's work. The hold is now in the ledger; settling the admission with it makes
   * the Redis counters (wallet cache, spend windows, key quota) see it at once, and frees the lease:
   * a submit is short. The task worker records the usage when the task ends.
   */
  private async insertSubmitted(key: AuthenticatedKey, submission: TaskSubmission, res: Response): Promise<CallEnding> {
    const deps = this.deps;
    const taskId = newTaskId();
    await insertTask(
      deps.db,
      {
        id: taskId,
        accountId: key.accountId,
        apiKeyId: key.keyId,
        kind: submission.request.kind,
        model: submission.model.id,
        request: submission.request,
        estimatedCredits: submission.estimatedCredits,
        deadlineAt: new Date(deps.clock.now() + deps.config.taskDeadlineMs),
      },
      new Date(deps.clock.now()),
    );
    return {
      kind: 'settle',
      charge: { credits: submission.estimatedCredits },
      deliver: async (headers) => {
        try {
          await this.queue.enqueue(taskId);
        } catch (error) {
          // The row is durable; the workers' sweeper enqueues tasks that have no job.
          deps.logger.error({ err: error, taskId }, 'enqueueing a task failed; the sweeper will pick it up');
        }
        for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
        res.json({ task_id: taskId, object: 'task', status: 'queued', estimated_credits: submission.estimatedCredits });
      },
    };
  }

  /**
   * Stops the provider's work now where it has a cancel; a worker that wakes for this task finds it
   * cancelled and stops too, so a failed provider cancel only leaves it abandoned.
   */
  private async cancelAtProvider(row: TaskRow, taskId: string): Promise<void> {
    if (!row.provider_ref || row.upstream_account_id === null) return;
    const accounts = await this.services.upstreams.accountsOfGroup(row.request.group.groupId).catch(() => []);
    const account = accounts.find((candidate) => candidate.id === row.upstream_account_id);
    if (account)
      await this.video
        .cancel(account, row.provider_ref)
        .catch((error: unknown) => this.deps.logger.warn({ err: error, taskId }, 'provider cancel failed; the operation is abandoned'));
  }

  /** Free endpoints still carry the accounting headers, errors included. */
  private async freeCall(req: Request, res: Response): Promise<AuthenticatedKey> {
    const key = await this.caller.authenticate(req);
    locals(res).accountingHeaders = await this.services.admission.peekHeaders(key).catch(() => ({}));
    for (const [name, value] of Object.entries(locals(res).accountingHeaders ?? {})) res.setHeader(name, value);
    return key;
  }

  private async accountTask(key: AuthenticatedKey, taskId: string): Promise<TaskRow> {
    const row = looksLikeTaskId(taskId) ? await findAccountTask<TaskRow>(this.deps.db, taskId, key.accountId) : undefined;
    if (!row) throw notFound(taskId);
    return row;
  }
}

export function createTasksRouter(
  deps: Dependencies,
  services: TaskServices,
  options: TasksRouterOptions = {},
): Router & { close(): Promise<void> } {
  const routes = new TaskRoutes(deps, services, options);
  const router = Router();
  const json = jsonBody(deps.config.maxBodyBytes);
  const idempotent = createIdempotentRoute(deps, {
    authenticate: (req) => routes.caller.authenticate(req),
    peekHeaders: (key) => services.admission.peekHeaders(key),
  }); // issue 17
  router.post('/v1/tasks/submit', json, idempotent('wait', routes.submit)); // issue 17: Idempotency-Key
  router.post('/v1/tasks/query', json, routes.query);
  router.post('/v1/tasks/cancel', json, routes.cancel);
  router.get('/v1/tasks/stream/:taskId', routes.stream);
  return Object.assign(router, { close: () => routes.close() });
}
