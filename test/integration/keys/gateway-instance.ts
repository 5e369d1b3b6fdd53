/**
 * One API instance for the keys tests: auth router, key management and the stand-in inference
 * routes (probe, stream) on a mini app, with its own authenticator (its own cache and subscription).
 */
import { Router } from 'express';
import { createAuthRouter } from '../../../src/auth/auth-router';
import { createKeyAuthenticator, type GatewayKeyAuthenticator } from '../../../src/auth/create-key-authenticator';
import { createManagementAuth } from '../../../src/auth/management-auth';
import { createPool } from '../../../src/db/pool';
import type { Dependencies } from '../../../src/dependencies';
import { createKeysRouter } from '../../../src/keys/keys-router';
import { createAdmission } from '../../../src/limits/create-admission';
import { createRedis } from '../../../src/redis/connection';
import { startMiniApp, type MiniApp } from '../../support/mini-app';
import type { TestDependencies } from '../../support/dependencies';
import { TEST_REDIS_URL } from '../../support/redis';
import { createProbeRouter } from '../admission/probe-router';

export interface GatewayInstance {
  url: string;
  deps: Dependencies;
  authenticator: GatewayKeyAuthenticator;
  app: MiniApp;
  close(): Promise<void>;
}

export async function startGatewayInstance(deps: Dependencies): Promise<GatewayInstance> {
  const authenticator = createKeyAuthenticator(deps);
  await authenticator.ready();
  const router = Router();
  router.use(createAuthRouter(deps));
  router.use(createKeysRouter(deps, { authenticator, managementAuth: createManagementAuth(deps, authenticator) }));
  router.use(createProbeRouter(deps, authenticator, createAdmission(deps)));
  const app = await startMiniApp(router);
  return {
    url: app.url,
    deps,
    authenticator,
    app,
    async close() {
      await app.close();
      await authenticator.close();
    },
  };
}

/** A second process's dependencies: same database and Redis prefix, its own connections. */
export function secondProcessDependencies(deps: TestDependencies): Dependencies & { closeConnections(): Promise<void> } {
  const db = createPool(deps.testDb.url, 4);
  const redis = createRedis(TEST_REDIS_URL);
  const subscriber = createRedis(TEST_REDIS_URL, { waits: true });
  return {
    ...deps,
    db,
    redis,
    subscriber,
    async closeConnections() {
      redis.disconnect();
      subscriber.disconnect();
      await db.end();
    },
  };
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: Record<string, unknown> & { error?: { type: string; code: string; message: string; param: string | null } };
}

export async function callJson(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<JsonResponse> {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as JsonResponse['body']) : {} };
}
