/**
 * Who may use a routing group (issue 21, finding 10), under `/api/v1/operator/groups/:id`: make it
 * public or private, list its grants, grant it to an account, revoke a grant (the account's keys in
 * the group stop on every API process within the key-invalidation round trip). Every change is
 * audited. Mounted behind the operator check of the operator router.
 */
import express, { type Router } from 'express';
import { z } from 'zod';
import { parseBody } from '../auth/parse-body';
import { createAuditActorOf } from '../auth/audit-actor';
import { recordAudit } from '../audit/record-audit';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import { idParam } from './id-param';
import type { KeyAuthenticator } from '../auth/key-authenticator';
import { grantGroup, listGroupGrants, revokeGroup, setGroupVisibility, type GrantDependencies } from './group-grants';

export const groupVisibilitySchema = z
  .object({
    visibility: z.enum(['public', 'private'], { error: 'must be public or private' }),
  })
  .strict();

export function createOperatorGrantsRouter(deps: Dependencies, authenticator: Pick<KeyAuthenticator, 'invalidate'>): Router {
  const router = express.Router();
  const grants: GrantDependencies = { db: deps.db, logger: deps.logger, invalidateKey: (hmac) => authenticator.invalidate(hmac) };
  const actorOf = createAuditActorOf(deps);
  const base = '/api/v1/operator/groups/:id';

  router.patch(base, async (req, res) => {
    const groupId = idParam(req, 'routing group');
    const { visibility } = parseBody(groupVisibilitySchema, req.body);
    const before = await setGroupVisibility(grants, groupId, visibility);
    if (before !== visibility) {
      await recordAudit(deps.db, actorOf(req, res), {
        accountId: null,
        action: 'group.update',
        targetType: 'routing_group',
        targetId: groupId,
        before: { visibility: before },
        after: { visibility },
      });
    }
    res.json({ object: 'routing_group', id: groupId, visibility });
  });

  router.get(`${base}/grants`, async (req, res) => {
    const grants = await listGroupGrants(deps.db, idParam(req, 'routing group'));
    res.json({
      object: 'list',
      data: grants.map((g) => ({
        object: 'group_grant',
        account_id: g.accountId,
        account_name: g.accountName,
        created_at: g.createdAt.toISOString(),
      })),
    });
  });

  router.put(`${base}/grants/:accountId`, async (req, res) => {
    const groupId = idParam(req, 'routing group');
    const accountId = idParam(req, 'account', 'accountId');
    const created = await grantGroup(grants, groupId, accountId);
    if (created) {
      await recordAudit(deps.db, actorOf(req, res), {
        accountId,
        action: 'grant.create',
        targetType: 'routing_group',
        targetId: groupId,
        before: null,
        after: { group_id: groupId, account_id: accountId },
      });
    }
    res.status(created ? 201 : 200).json({ object: 'group_grant', group_id: groupId, account_id: accountId, created });
  });

  router.delete(`${base}/grants/:accountId`, async (req, res) => {
    const groupId = idParam(req, 'routing group');
    const accountId = idParam(req, 'account', 'accountId');
    if (!(await revokeGroup(grants, groupId, accountId))) throw new GatewayError('not_found', 'this account has no grant of this group');
    await recordAudit(deps.db, actorOf(req, res), {
      accountId,
      action: 'grant.revoke',
      targetType: 'routing_group',
      targetId: groupId,
      before: { group_id: groupId, account_id: accountId },
      after: null,
    });
    res.json({ object: 'group_grant', group_id: groupId, account_id: accountId, deleted: true });
  });

  return router;
}
