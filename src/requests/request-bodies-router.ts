/**
 * Keeping request and response bodies (issue 22, item 2): off by default. An operator allows it per
 * account; the account then turns it on for all its keys, and a key may override the account (on,
 * off, or `null` to follow it). API processes see a change within the key cache's TTL
 * (`KEY_CACHE_TTL_MS`). Kept bodies are redacted and size-capped (see redact-body). Every change of
 * a setting is in the audit log (`account.update`, `key.update`) with the values before and after,
 * written in the transaction of the change so neither exists without the other.
 */
import express, { type Request, type RequestHandler, type Router } from 'express';
import { z } from 'zod';
import { recordAudit, type AuditActor } from '../audit/record-audit';
import { createAuditActorOf } from '../auth/audit-actor';
import { managementPrincipal } from '../auth/management-auth';
import { parseBody } from '../auth/parse-body';
import {
  accountMayKeepBodies,
  readBodySettings,
  setAccountKeepsBodies,
  setKeyKeepsBodies,
  setOperatorBodySettings,
} from '../db/repositories/request-bodies';
import { inTransaction } from '../db/transaction';
import type { Queryable } from '../db/queryable';
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

/** Records a settings change of an account or key; nothing when the PUT left it as it was. */
async function auditChange(
  db: Queryable,
  actor: AuditActor,
  accountId: number,
  target: { type: 'account' | 'api_key'; id: number },
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Promise<void> {
  if (JSON.stringify(before) === JSON.stringify(after)) return;
  await recordAudit(db, actor, {
    accountId,
    action: target.type === 'account' ? 'account.update' : 'key.update',
    targetType: target.type,
    targetId: target.id,
    before,
    after,
  });
}

const NOT_ALLOWED = 'keeping request bodies is not allowed for this account (an operator allows it)';

export function createRequestBodiesRouter(
  deps: Pick<Dependencies, 'db' | 'config'>,
  options: { managementAuth: RequestHandler; requireOperator: RequestHandler },
): Router {
  const router = express.Router();
  const actorOf = createAuditActorOf(deps);
  const answer = async (res: express.Response, accountId: number) => {
    const settings = await readSettings(deps.db, accountId);
    if (!settings) throw new GatewayError('not_found', 'account not found');
    res.json(settings);
  };

  router.get('/api/v1/me/request-bodies', options.managementAuth, async (_req, res) => answer(res, managementPrincipal(res).accountId));

  router.put('/api/v1/me/request-bodies', options.managementAuth, async (req, res) => {
    const input = parseBody(accountSchema, req.body);
    const { accountId } = managementPrincipal(res);
    await inTransaction(deps.db, async (client) => {
      const changed = await setAccountKeepsBodies(client, accountId, input.keep);
      if (!changed) throw new GatewayError('permission', NOT_ALLOWED, { param: 'keep' });
      await auditChange(
        client,
        actorOf(req, res),
        accountId,
        { type: 'account', id: accountId },
        { keep_request_bodies: changed.before },
        { keep_request_bodies: input.keep },
      );
    });
    await answer(res, accountId);
  });

  router.put('/api/v1/me/keys/:id/request-bodies', options.managementAuth, async (req, res) => {
    const input = parseBody(keySchema, req.body);
    const { accountId } = managementPrincipal(res);
    const keyId = idParam(req, 'key');
    await inTransaction(deps.db, async (client) => {
      if (input.keep === true && !(await accountMayKeepBodies(client, accountId)))
        throw new GatewayError('permission', NOT_ALLOWED, { param: 'keep' });
      const changed = await setKeyKeepsBodies(client, accountId, keyId, input.keep);
      if (!changed) throw new GatewayError('not_found', 'key not found');
      await auditChange(
        client,
        actorOf(req, res),
        accountId,
        { type: 'api_key', id: keyId },
        { keep_request_bodies: changed.before },
        { keep_request_bodies: input.keep },
      );
    });
    await answer(res, accountId);
  });

  router.put('/api/v1/operator/accounts/:id/request-bodies', options.requireOperator, async (req, res) => {
    const input = parseBody(operatorSchema, req.body);
    const accountId = idParam(req, 'account');
    await inTransaction(deps.db, async (client) => {
      const changed = await setOperatorBodySettings(client, accountId, input);
      if (!changed) throw new GatewayError('not_found', 'account not found');
      const view = (settings: { allowed: boolean; keep: boolean }) => ({
        request_bodies_allowed: settings.allowed,
        keep_request_bodies: settings.keep,
      });
      await auditChange(
        client,
        actorOf(req, res),
        accountId,
        { type: 'account', id: accountId },
        view(changed.before),
        view(changed.after),
      );
    });
    await answer(res, accountId);
  });
  return router;
}
