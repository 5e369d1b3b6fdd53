/**
 * Keeping request and response bodies (issue 22, item 2): off by default. An operator allows it per
 * account; the account then turns it on for all its keys, and a key may override the account (on,
 * off, or `null` to follow it). API processes see a change within the key cache's TTL
 * (`KEY_CACHE_TTL_MS`). Kept bodies are redacted and size-capped (see redact-body).
 */
import express, { type Request, type RequestHandler, type Router } from 'express';
import { z } from 'zod';
import { managementPrincipal } from '../auth/management-auth';
import { parseBody } from '../auth/parse-body';
import {
  accountMayKeepBodies, readBodySettings, setAccountKeepsBodies, setKeyKeepsBodies, setOperatorBodySettings,
} from '../db/repositories/request-bodies';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';

const operatorSchema = z.object({ allowed: z.boolean().optional(), keep: z.boolean().optional() }).strict();
const accountSchema = z.object({ keep: z.boolean() }).strict();
const keySchema = z.object({ keep: z.boolean().nullable() }).strict();

function idParam(req: Request, what: string): number {
  const raw = req.params.id;
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,15}$/.test(raw)) throw new GatewayError('not_found', `${what} not found`);
  return Number(raw);
}

async function readSettings(db: Dependencies['db'], accountId: number): Promise<Record<string, unknown> | undefined> {
  const settings = await readBodySettings(db, accountId);
  if (!settings) return undefined;
  return {
    object: 'request_body_settings',
    account_id: accountId,
    allowed: settings.allowed,
    keep: settings.keep,
    key_overrides: settings.keyOverrides.map((key) => ({ api_key_id: key.apiKeyId, keep: key.keep })),
  };
}

export function createRequestBodiesRouter(deps: Pick<Dependencies, 'db'>, options: { managementAuth: RequestHandler; requireOperator: RequestHandler }): Router {
  const router = express.Router();
  const answer = async (res: express.Response, accountId: number) => {
    const settings = await readSettings(deps.db, accountId);
    if (!settings) throw new GatewayError('not_found', 'account not found');
    res.json(settings);
  };

  router.get('/api/v1/me/request-bodies', options.managementAuth, async (_req, res) => answer(res, managementPrincipal(res).accountId));

  router.put('/api/v1/me/request-bodies', options.managementAuth, async (req, res) => {
    const input = parseBody(accountSchema, req.body);
    const { accountId } = managementPrincipal(res);
    if (!(await setAccountKeepsBodies(deps.db, accountId, input.keep))) throw new GatewayError('permission', 'keeping request bodies is not allowed for this account (an operator allows it)', { param: 'keep' });
    await answer(res, accountId);
  });

  router.put('/api/v1/me/keys/:id/request-bodies', options.managementAuth, async (req, res) => {
    const input = parseBody(keySchema, req.body);
    const { accountId } = managementPrincipal(res);
    const keyId = idParam(req, 'key');
    const allowed = await accountMayKeepBodies(deps.db, accountId);
    if (input.keep === true && !allowed) throw new GatewayError('permission', 'keeping request bodies is not allowed for this account (an operator allows it)', { param: 'keep' });
    if (!(await setKeyKeepsBodies(deps.db, accountId, keyId, input.keep))) throw new GatewayError('not_found', 'key not found');
    await answer(res, accountId);
  });

  router.put('/api/v1/operator/accounts/:id/request-bodies', options.requireOperator, async (req, res) => {
    const input = parseBody(operatorSchema, req.body);
    const accountId = idParam(req, 'account');
    if (!(await setOperatorBodySettings(deps.db, accountId, input))) throw new GatewayError('not_found', 'account not found');
    await answer(res, accountId);
  });
  return router;
}
