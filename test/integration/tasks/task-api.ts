/**
 * The images and tasks routers in an Express app with the real authenticator, admission and usage
 * recorder, as the gateway mounts them (no global JSON parser ahead of the multipart edits route).
 * Used in process by the tests and as a separate API process by api-entry.ts.
 */
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKeyAuthenticator } from '../../../src/auth/create-key-authenticator';
import { createUsageRecorder } from '../../../src/billing/create-usage-recorder';
import type { Dependencies } from '../../../src/dependencies';
import { createErrorMiddleware } from '../../../src/http/error-middleware';
import { requestIdMiddleware } from '../../../src/http/request-id';
import { createImagesRouter } from '../../../src/images/images-router';
import { createAdmission } from '../../../src/limits/create-admission';
import { createTasksRouter } from '../../../src/tasks/tasks-router';
import type { TaskServices } from '../../../src/tasks/task-services';
import { createUpstreamClient } from '../../../src/upstream/upstream-client';
import { createUpstreamDirectory } from '../../../src/upstream/upstream-directory';

export interface TaskApi {
  url: string;
  server: Server;
  services: TaskServices;
  /** Resolves once every usage event of this API is written by a billing worker (false on timeout). */
  drainUsage(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export async function startTaskApi(deps: Dependencies, options: { heartbeatMs?: number } = {}): Promise<TaskApi> {
  const authenticator = createKeyAuthenticator(deps);
  const usage = createUsageRecorder(deps);
  const upstreamClient = createUpstreamClient(deps.config.upstream);
  const services: TaskServices = {
    authenticator,
    usage,
    upstreamClient,
    admission: createAdmission(deps),
    upstreams: createUpstreamDirectory({ db: deps.db, crypto: deps.crypto, clock: deps.clock }),
  };
  const tasks = createTasksRouter(deps, services, { heartbeatMs: options.heartbeatMs });
  const app = express();
  app.disable('x-powered-by');
  app.use(requestIdMiddleware());
  app.use(createImagesRouter(deps, services));
  app.use(tasks);
  app.use(createErrorMiddleware(deps.logger, {}));
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    services,
    drainUsage: (timeoutMs = 15_000) => usage.drain(timeoutMs),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tasks.close();
      await usage.close();
      await authenticator.close();
      await upstreamClient.close();
    },
  };
}
