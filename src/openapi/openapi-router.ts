/** GET /openapi.json: the document, built once per process. */
import { Router } from 'express';
import { buildOpenApiDocument } from './openapi-document';

export function createOpenApiRouter(version: string): Router {
  const router = Router();
  const body = JSON.stringify(buildOpenApiDocument(version));
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(body);
  });
  return router;
}
