/** The API process: `npm run api`. Stateless; run as many as you like behind a load balancer. */
import type { Server } from 'node:http';
import { createApp } from './app';
import { ConfigError, loadConfig } from './config';
import { migrate } from './db/migrate';
import { buildDependencies, checkReachable, closeDependencies, ServiceUnreachableError } from './process/build-dependencies';
import { createServices } from './services';

export async function startApiServer(options: { port?: number; host?: string; migrate?: boolean } = {}) {
  const config = loadConfig();
  const deps = buildDependencies(config, { processName: 'api' });
  for (const warning of config.warnings) deps.logger.warn(warning);
  await checkReachable(config, deps);
  if (options.migrate !== false) await migrate(config.databaseUrl);
  await deps.storage.ensureBucket().catch((error: Error) => deps.logger.warn(`object storage not ready: ${error.message}`));
  const services = createServices(deps);
  const app = createApp(deps, services);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(options.port ?? config.port, options.host ?? config.host, () => resolve(s));
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  deps.logger.info({ port: (server.address() as { port: number }).port }, 'API listening');
  return {
    server,
    deps,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.closeRoutes();
      await services.close();
      await closeDependencies(deps);
    },
  };
}

if (require.main === module) {
  startApiServer().then((api) => {
    const stop = () => { void api.close().finally(() => process.exit(0)); };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  }).catch((error: unknown) => {
    if (error instanceof ConfigError || error instanceof ServiceUnreachableError) console.error(error.message);
    else console.error('API failed to start:', error);
    process.exit(1);
  });
}
