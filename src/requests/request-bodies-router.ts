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
  const account = await db.query<{ request_bodies_allowed: boolean; keep_request_bodies: boolean }>(
    'SELECT request_bodies_allowed, keep_request_bodies FROM accounts WHERE id = $1', [accountId]);
  const row = account.rows[0];
  if (!row) return undefined;
  const keys = await db.query<{ id: number; keep_request_bodies: boolean | null }>(
    'SELECT id, keep_request_bodies FROM api_keys WHERE account_id = $1 AND keep_request_bodies IS NOT NULL ORDER BY id', [accountId]);
  return {
    object: 'request_body_settings',
    account_id: accountId,
    allowed: row.request_bodies_allowed,
    keep: row.keep_request_bodies,
    key_overrides: keys.rows.map((key) => ({ api_key_id: Number(key.id), keep: key.keep_request_bodies })),
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
    const updated = await deps.db.query('UPDATE accounts SET keep_request_bodies = $2 WHERE id = $1 AND (request_bodies_allowed OR NOT $2)', [accountId, input.keep]);
    if (updated.rowCount === 0) throw new GatewayError('permission', 'keeping request bodies is not allowed for this account (an operator allows it)', { param: 'keep' });
    await answer(res, accountId);
  });

  router.put('/api/v1/me/keys/:id/request-bodies', options.managementAuth, async (req, res) => {
    const input = parseBody(keySchema, req.body);
    const { accountId } = managementPrincipal(res);
    const keyId = idParam(req, 'key');
    const allowed = await deps.db.query<{ ok: boolean }>('SELECT request_bodies_allowed AS ok FROM accounts WHERE id = $1', [accountId]);
    if (input.keep === true && !allowed.rows[0]?.ok) throw new GatewayError('permission', 'keeping request bodies is not allowed for this account (an operator allows it)', { param: 'keep' });
    const updated = await deps.db.query('UPDATE api_keys SET keep_request_bodies = $3, updated_at = now() WHERE id = $1 AND account_id = $2', [keyId, accountId, input.keep]);
    if (updated.rowCount === 0) throw new GatewayError('not_found', 'key not found');
    await answer(res, accountId);
  });

  router.put('/api/v1/operator/accounts/:id/request-bodies', options.requireOperator, async (req, res) => {
    const input = parseBody(operatorSchema, req.body);
    const accountId = idParam(req, 'account');
    const updated = await deps.db.query(
      'UPDATE accounts SET request_bodies_allowed = coalesce($2, request_bodies_allowed), keep_request_bodies = coalesce($3, keep_request_bodies) WHERE id = $1',
      [accountId, input.allowed ?? null, input.keep ?? null]);
    if (updated.rowCount === 0) throw new GatewayError('not_found', 'account not found');
    await answer(res, accountId);
  });
  return router;
}
