/**
 * The audit log's listings (issue 21): `GET /api/v1/me/audit`, the caller's account's own events
 * (cookie or key), and `GET /api/v1/operator/audit`, every account's and the operator-wide ones
 * (operator session; mounted behind the operator check). Newest first, cursor-paged like the usage
 * listing, filtered by action (or `key.`-style family), target, actor type and time.
 */
import express, { type RequestHandler, type Router } from 'express';
import { z } from 'zod';
import { limit, parseQuery, positiveId, time, timeRange } from './account-query-schemas';
import { decodeCursor, page } from './page-cursor';
import { managementPrincipal } from '../auth/management-auth';
import type { Dependencies } from '../dependencies';
import { listAuditEvents, type AuditFilters } from '../db/repositories/audit-events';
import { presentAuditEvent } from '../audit/present-audit-event';

const AUDIT_CURSOR = 'audit';
const ACTOR_TYPES = ['console_user', 'api_key', 'cli', 'anonymous'] as const;
const word = z
  .string()
  .regex(/^[a-z_]{1,40}(?:\.[a-z_]{0,40})?$/, { error: 'must be an action such as key.update, or a family such as key.' });

const auditQuery = {
  limit,
  cursor: z.string().min(1).max(200).optional(),
  action: word.optional(),
  target_type: z
    .string()
    .regex(/^[a-z_]{1,40}$/, { error: 'must be a target type such as api_key' })
    .optional(),
  target_id: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,200}$/, { error: 'must be a target id' })
    .optional(),
  actor_type: z.enum(ACTOR_TYPES, { error: `must be one of ${ACTOR_TYPES.join(', ')}` }).optional(),
  from: time.optional(),
  to: time.optional(),
};
const accountAuditQuerySchema = z.object(auditQuery).superRefine(timeRange);
const operatorAuditQuerySchema = z.object({ ...auditQuery, account_id: positiveId.optional() }).superRefine(timeRange);

function filters(query: z.infer<typeof accountAuditQuerySchema>, accountId: number | undefined): AuditFilters {
  return {
    accountId,
    limit: query.limit,
    beforeId: query.cursor === undefined ? undefined : decodeCursor(AUDIT_CURSOR, query.cursor),
    action: query.action,
    targetType: query.target_type,
    targetId: query.target_id,
    actorType: query.actor_type,
    from: query.from,
    to: query.to,
  };
}

export function createAccountAuditRouter(deps: Pick<Dependencies, 'db'>, options: { managementAuth: RequestHandler }): Router {
  const router = express.Router();
  router.get('/api/v1/me/audit', options.managementAuth, async (req, res) => {
    const query = parseQuery(accountAuditQuerySchema, req.query);
    const rows = await listAuditEvents(deps.db, filters(query, managementPrincipal(res).accountId));
    res.json(page(rows, query.limit, AUDIT_CURSOR, presentAuditEvent));
  });
  return router;
}

/** Behind the operator router's check (console session of an operator). */
export function createOperatorAuditRouter(deps: Pick<Dependencies, 'db'>): Router {
  const router = express.Router();
  router.get('/api/v1/operator/audit', async (req, res) => {
    const query = parseQuery(operatorAuditQuerySchema, req.query);
    const rows = await listAuditEvents(deps.db, filters(query, query.account_id));
    res.json(page(rows, query.limit, AUDIT_CURSOR, presentAuditEvent));
  });
  return router;
}
