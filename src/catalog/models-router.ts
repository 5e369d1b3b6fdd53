/**
 * `GET /v1/models`: the catalog with repeatable `capability` (logical AND) and `family` filters,
 * limited to what the key's group routes and its model allowlist admits. Free.
 * With `client_version` (Codex's catalog request), the list is in Codex's model-info shape.
 */
import { Router, type Request } from 'express';
import { createCallerAuthentication } from '../auth/authenticate-caller';
import type { KeyAuthenticator } from '../auth/key-authenticator';
import { GatewayError } from '../errors/gateway-error';
import type { Catalog } from './catalog';
import { codexModelInfo, servesCodex } from './codex-model-info';

function stringList(value: unknown): string[] {
  if (value === undefined) return [];
  const values = Array.isArray(value) ? value : [value];
  return values
    .flatMap((v) => (typeof v === 'string' ? v.split(',') : []))
    .map((v) => v.trim())
    .filter(Boolean);
}

export function createModelsRouter(catalog: Catalog, authenticator: KeyAuthenticator, trustedProxies: readonly string[]): Router {
  const router = Router();
  const caller = createCallerAuthentication(authenticator, trustedProxies);
  const authenticate = (request: Request) => caller.authenticate(request);
  router.get('/v1/models', async (request, response) => {
    const key = await authenticate(request);
    const family = typeof request.query.family === 'string' ? request.query.family : undefined;
    let models = catalog.list({ capabilities: stringList(request.query.capability), family });
    if (key.groupFamily !== null) models = models.filter((m) => m.family === key.groupFamily);
    models = models.filter((m) => key.allowedModels.allows(m.id));
    // Interface 7 ("Other"): a key granted no model at all is told so, not shown an empty list.
    if (models.length === 0 && key.allowedModels.patterns.length > 0 && !catalog.list().some((m) => key.allowedModels.allows(m.id))) {
      throw new GatewayError('permission', 'no models granted to this key (allowed_models matches no model)');
    }
    // Codex asks with its version and reads its own model-info shape (issue 25).
    if (request.query.client_version !== undefined) {
      response.json({ models: models.filter(servesCodex).map((m, index) => codexModelInfo(m, index)) });
      return;
    }
    response.json({ object: 'list', data: models.map((m) => catalog.toPublic(m)) });
  });
  router.get('/v1/models/:model', async (request, response) => {
    const key = await authenticate(request);
    const model = catalog.find(String(request.params.model));
    if (!model || model.retired || (key.groupFamily !== null && model.family !== key.groupFamily) || !key.allowedModels.allows(model.id)) {
      throw new GatewayError('not_found', `model ${String(request.params.model)} not found`);
    }
    response.json(catalog.toPublic(model));
  });
  return router;
}
