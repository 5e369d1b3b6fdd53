/** The API as its own process for the chaos tests (env: a gateway configuration); prints `LISTENING <url>`. */
import { startApiServer } from '../../src/server';

startApiServer({ port: 0, host: '127.0.0.1', migrate: false })
  .then((api) => {
    const { port } = api.server.address() as { port: number };
    process.stdout.write(`LISTENING http://127.0.0.1:${port}\n`);
    process.on('SIGTERM', () => {
      void api.close().finally(() => process.exit(0));
    });
  })
  .catch((error: unknown) => {
    process.stderr.write(`api process failed: ${String(error)}\n`);
    process.exit(1);
  });
