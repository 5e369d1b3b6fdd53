/**
 * A whole gateway for end-to-end tests: real PostgreSQL (fresh database), Redis (own prefix),
 * embedded S3 (optional), the provider simulator in process, the bootstrap data (groups, simulator
 * accounts, a pro account with 100 USD, a key in group `default`), and the API on a free loopback port.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { createApp } from '../../src/app';
import { bootstrap } from '../../src/process/bootstrap';
import type { Dependencies } from '../../src/dependencies';
import { createRedis } from '../../src/redis/connection';
import { createServices, type Services } from '../../src/services';
import { createTestDependencies, type TestDependencies } from './dependencies';
import { TEST_REDIS_URL } from './redis';

export interface ApiInstance {
  url: string;
  server: Server;
  services: Services;
  close(): Promise<void>;
}

export interface TestGateway extends ApiInstance {
  key: string;
  accountId: number;
  deps: TestDependencies;
  sim: Simulator;
  /** Another API process sharing the database and Redis, with its own caches and subscriber. */
  startSecondInstance(): Promise<ApiInstance>;
}

async function startInstance(deps: Dependencies, onClose: () => Promise<void> = async () => undefined): Promise<ApiInstance> {
  const services = createServices(deps);
  const app = createApp(deps, services);
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    services,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.closeRoutes();
      await services.close();
      await onClose();
    },
  };
}

export async function startTestGateway(
  options: {
    s3?: boolean;
    env?: Record<string, string>;
    simulator?: Parameters<typeof startSimulator>[0];
  } = {},
): Promise<TestGateway> {
  const sim = await startSimulator({ port: 0, videoMs: 0, ...options.simulator });
  const deps = await createTestDependencies({
    s3: options.s3,
    env: { IMAGE_FETCH_ALLOW_PRIVATE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', ...options.env },
  });
  const boot = await bootstrap(deps.db, deps.crypto, deps.catalog, { simulatorUrl: sim.url, simulatorKey: 'sim-key' });
  const api = await startInstance(deps);
  return {
    ...api,
    key: boot.key!,
    accountId: boot.accountId!,
    deps,
    sim,
    async startSecondInstance() {
      const redis = createRedis(TEST_REDIS_URL);
      const subscriber = createRedis(TEST_REDIS_URL, { waits: true });
      return startInstance({ ...deps, redis, subscriber }, async () => {
        redis.disconnect();
        subscriber.disconnect();
      });
    },
    async close() {
      await api.close();
      await sim.close();
      await deps.close();
    },
  };
}
