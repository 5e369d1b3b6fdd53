/**
 * `GET /internal/trace`: the sampled request trace's sums by phase (issue 24), `DELETE` starts them
 * afresh (the bench reads one scenario at a time). Mounted only when `GATEWAY_TRACE_SAMPLE` > 0, and
 * like `/metrics` it carries no credential: enable tracing only where the port is private.
 */
import { Router } from 'express';
import type { Tracer } from './request-trace';

export function createTraceRouter(tracer: Tracer): Router {
  const router = Router();
  router.get('/internal/trace', (_req, res) => {
    res.json(tracer.summary());
  });
  router.delete('/internal/trace', (_req, res) => {
    tracer.reset();
    res.status(204).end();
  });
  return router;
}
