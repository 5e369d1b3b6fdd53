/** `/healthz` (process alive), `/readyz` (PostgreSQL and Redis reachable), `/metrics` (Prometheus text). */
import { Router } from 'express';
import { pingDatabase } from '../db/repositories/health';
import type { Dependencies } from '../dependencies';

async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function createHealthRouter(deps: Pick<Dependencies, 'db' | 'redis' | 'metrics'>): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const [postgres, redis] = await Promise.all([
      within(pingDatabase(deps.db), 2_000).then(
        () => 'ok',
        (e: Error) => `unreachable: ${e.message}`,
      ),
      within(deps.redis.ping(), 2_000).then(
        () => 'ok',
        (e: Error) => `unreachable: ${e.message}`,
      ),
    ]);
    const ready = postgres === 'ok' && redis === 'ok';
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', postgres, redis });
  });
  router.get('/metrics', async (_req, res) => {
    res.setHeader('content-type', deps.metrics.registry.contentType);
    res.send(await deps.metrics.registry.metrics());
  });
  return router;
}
