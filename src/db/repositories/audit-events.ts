/** The audit log (`audit_events`): append one event; list a page of them with the listings' filters. */
import type { Queryable } from '../queryable';
import { sqlConditions } from '../sql-conditions';

export type AuditActorType = 'console_user' | 'api_key' | 'cli' | 'anonymous';

export interface NewAuditEvent {
  accountId: number | null;
  actorType: AuditActorType;
  actorId: number | null;
  actorLabel: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  address: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export async function insertAuditEvent(db: Queryable, event: NewAuditEvent): Promise<void> {
  await db.query(
    `INSERT INTO audit_events (account_id, actor_type, actor_id, actor_label, action, target_type, target_id, address, before, after)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      event.accountId,
      event.actorType,
      event.actorId,
      event.actorLabel,
      event.action,
      event.targetType,
      event.targetId,
      event.address,
      event.before,
      event.after,
    ],
  );
}

export interface AuditFilters {
  /** Undefined only for the operator's listing of every account. */
  accountId?: number;
  limit: number;
  beforeId?: number;
  /** An action (`key.update`) or a family of them (`key.`, ending in a dot). */
  action?: string;
  targetType?: string;
  targetId?: string;
  actorType?: AuditActorType;
  from?: Date;
  to?: Date;
}

/** A stored event: what was appended, with its id and time (`before` and `after` as stored JSON). */
export interface AuditEventRecord extends Omit<NewAuditEvent, 'before' | 'after'> {
  id: number;
  before: unknown;
  after: unknown;
  createdAt: Date;
}

interface Row {
  id: string;
  account_id: string | null;
  actor_type: AuditActorType;
  actor_id: string | null;
  actor_label: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  address: string | null;
  before: unknown;
  after: unknown;
  created_at: Date;
}

/** Up to `limit + 1` events, newest first (keyset pagination on id): the extra one only tells whether another page exists. */
export async function listAuditEvents(db: Queryable, filters: AuditFilters): Promise<AuditEventRecord[]> {
  const sql = sqlConditions('id > ?', 0);
  const add = sql.add;
  if (filters.accountId !== undefined) add('account_id = ?', filters.accountId);
  if (filters.beforeId !== undefined) add('id < ?', filters.beforeId);
  if (filters.action !== undefined) {
    if (filters.action.endsWith('.')) add('starts_with(action, ?)', filters.action);
    else add('action = ?', filters.action);
  }
  if (filters.targetType !== undefined) add('target_type = ?', filters.targetType);
  if (filters.targetId !== undefined) add('target_id = ?', filters.targetId);
  if (filters.actorType !== undefined) add('actor_type = ?', filters.actorType);
  if (filters.from !== undefined) add('created_at >= ?', filters.from);
  if (filters.to !== undefined) add('created_at < ?', filters.to);
  const limit = sql.param(filters.limit + 1);
  const result = await db.query<Row>(
    `SELECT id, account_id, actor_type, actor_id, actor_label, action, target_type, target_id, address, before, after, created_at
       FROM audit_events WHERE ${sql.where()} ORDER BY id DESC LIMIT ${limit}`,
    sql.values,
  );
  return result.rows.map((row) => ({
    id: Number(row.id),
    accountId: row.account_id === null ? null : Number(row.account_id),
    actorType: row.actor_type,
    actorId: row.actor_id === null ? null : Number(row.actor_id),
    actorLabel: row.actor_label,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    address: row.address,
    before: row.before,
    after: row.after,
    createdAt: row.created_at,
  }));
}
