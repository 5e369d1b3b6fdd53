/**
 * An express app with the gateway's request-id, JSON body and error middleware around one router:
 * lets a module's routes be tested before (and apart from) the whole app.
 */
import express, { type Router } from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createErrorMiddleware } from '../../src/http/error-middleware';
import { jsonBody } from '../../src/http/json-body';
import { createLogger } from '../../src/http/logger';
import { requestIdMiddleware } from '../../src/http/request-id';

export interface MiniApp {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function startMiniApp(router: Router, options: { maxBodyBytes?: number } = {}): Promise<MiniApp> {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', false);
  app.use(requestIdMiddleware());
  app.use(jsonBody(options.maxBodyBytes ?? 1024 * 1024));
  app.use(router);
  app.use(createErrorMiddleware(createLogger('silent'), {}));
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
