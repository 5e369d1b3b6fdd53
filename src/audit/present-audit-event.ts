/** An audit event as the listings show it (the account's own and the operator's). */
import type { AuditEventRecord } from '../db/repositories/audit-events';

export function presentAuditEvent(event: AuditEventRecord): Record<string, unknown> {
  return {
    object: 'audit_event',
    id: event.id,
    account_id: event.accountId,
    actor: { type: event.actorType, id: event.actorId, label: event.actorLabel },
    action: event.action,
    target: { type: event.targetType, id: event.targetId },
    address: event.address,
    before: event.before,
    after: event.after,
    created_at: event.createdAt.toISOString(),
  };
}
