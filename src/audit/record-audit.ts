/**
 * Appends one audit event (issue 21). The caller passes the state before and after the change with
 * secrets already left out (a key's plaintext, an upstream credential, a password never reach this
 * table); `redactSecrets` is a second guard for field names that only ever hold secrets.
 */
import type { Pool, PoolClient } from 'pg';

export type AuditActorType = 'console_user' | 'api_key' | 'cli' | 'anonymous';

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

const SECRET_FIELDS = new Set(['key', 'secret', 'custom_key', 'api_key', 'apiKey', 'password', 'password_hash', 'credential', 'credential_encrypted', 'secret_encrypted', 'secret_hmac']);

export function redactSecrets(value: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  if (value === null || value === undefined) return null;
  return Object.fromEntries(Object.entries(value).filter(([name]) => !SECRET_FIELDS.has(name)));
}

export async function recordAudit(db: Pool | PoolClient, actor: AuditActor, entry: AuditEntry): Promise<void> {
  await db.query(
    `INSERT INTO audit_events (account_id, actor_type, actor_id, actor_label, action, target_type, target_id, address, before, after)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [entry.accountId, actor.type, actor.id ?? null, actor.label ?? null, entry.action, entry.targetType,
      entry.targetId === undefined || entry.targetId === null ? null : String(entry.targetId), actor.address ?? null,
      redactSecrets(entry.before), redactSecrets(entry.after)]);
}
