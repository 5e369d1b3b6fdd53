/** The API process: `npm run api`. Stateless; run as many as you like behind a load balancer. */
import type { Server } from 'node:http';
import { createApp } from './app';
import { startCatalogSync } from './catalog/catalog-sync';
import { DEFAULT_CATALOG } from './catalog/default-catalog';
import { ConfigError, loadConfig } from './config';
import { migrate } from './db/migrate';
import { buildDependencies, checkReachable, closeDependencies, ServiceUnreachableError } from './process/build-dependencies';
import { trackHttpServer, type DrainResult } from './process/drain-http-server';
import { createServices } from './services';

export async function startApiServer(options: { port?: number; host?: string; migrate?: boolean } = {}) {
  const config = loadConfig();
  const deps = buildDependencies(config, { processName: 'api' });
  for (const warning of config.warnings) deps.logger.warn(warning);
  await checkReachable(config, deps);
  if (options.migrate !== false) await migrate(config.databaseUrl);
  // Not awaited: only the media routes need the bucket, and readiness should not wait on S3 (~0.2 s).
  void deps.storage.ensureBucket().catch((error: Error) => deps.logger.warn(`object storage not ready: ${error.message}`));
  const catalogSync = await startCatalogSync(deps, { defaults: DEFAULT_CATALOG });
  const services = createServices(deps);
  const app = createApp(deps, services);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(options.port ?? config.port, options.host ?? config.host, () => resolve(s));
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const drainer = trackHttpServer(server);
  deps.logger.info({ port: (server.address() as { port: number }).port }, 'API listening');
  return {
    server,
    deps,
    /**
     * Graceful stop: no new connections, requests and streams in flight finish (at most
     * `SHUTDOWN_GRACE_MS`, then cut), task event streams end (their clients reconnect elsewhere),
     * then usage events held in memory are flushed to Redis before the connections close.
     */
    async close(graceMs = config.shutdownGraceMs): Promise<DrainResult> {
      const result = await drainer.drain({ graceMs, isSubscription: (req) => req.url?.startsWith('/v1/tasks/stream/') === true });
      await app.closeRoutes();
      catalogSync.close();
      await services.close();
      await closeDependencies(deps);
      return result;
    },
  };
}

/** SIGTERM/SIGINT: drain, flush, exit 0. A second signal exits at once. */
function stopOnSignals(api: Awaited<ReturnType<typeof startApiServer>>): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    api.deps.logger.info({ signal }, 'draining: no new connections, waiting for requests in flight');
    api.close().then(
      (result) => {
        if (result.cut > 0) api.deps.logger.warn({ cut: result.cut }, 'grace period over: cut requests still running');
        api.deps.logger.info('API stopped');
        process.exit(0);
      },
      (error: unknown) => {
        api.deps.logger.error({ err: error }, 'API stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (require.main === module) {
  startApiServer()
    .then(stopOnSignals)
    .catch((error: unknown) => {
      if (error instanceof ConfigError || error instanceof ServiceUnreachableError) console.error(error.message);
      else console.error('API failed to start:', error);
      process.exit(1);
    });
}
