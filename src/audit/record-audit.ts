/**
 * Appends one audit event (issue 21). The caller passes the state before and after the change with
 * secrets already left out (a key's plaintext, an upstream credential, a password never reach this
 * table); `redactSecrets` is a second guard for field names that only ever hold secrets.
 */
import type { Queryable } from '../db/queryable';
import { insertAuditEvent, type AuditActorType } from '../db/repositories/audit-events';

export interface AuditActor {
  type: AuditActorType;
  id?: number | null;
  label?: string | null;
  address?: string | null;
}

export interface AuditEntry {
  /** The account concerned; null for operator-wide changes (upstream accounts, the catalog). */
  accountId: number | null;
  /** `key.create`, `money.topup`, `grant.revoke`, `console.login_failed`… */
  action: string;
  targetType: string;
  targetId?: string | number | null;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

const SECRET_FIELDS = new Set([
  'key',
  'secret',
  'custom_key',
  'api_key',
  'apiKey',
  'password',
  'password_hash',
  'credential',
  'credential_encrypted',
  'secret_encrypted',
  'secret_hmac',
]);

export function redactSecrets(value: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  if (value === null || value === undefined) return null;
  return Object.fromEntries(Object.entries(value).filter(([name]) => !SECRET_FIELDS.has(name)));
}

export async function recordAudit(db: Queryable, actor: AuditActor, entry: AuditEntry): Promise<void> {
  await insertAuditEvent(db, {
    accountId: entry.accountId,
    actorType: actor.type,
    actorId: actor.id ?? null,
    actorLabel: actor.label ?? null,
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId === undefined || entry.targetId === null ? null : String(entry.targetId),
    address: actor.address ?? null,
    before: redactSecrets(entry.before),
    after: redactSecrets(entry.after),
  });
}
