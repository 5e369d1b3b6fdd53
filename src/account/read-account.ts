/** The account context of `GET /api/v1/me/account`: the account, and who is asking (console user or key). */
import type { Pool } from 'pg';
import type { ManagementPrincipal } from '../auth/management-auth';

export interface AccountRecord {
  id: number;
  name: string;
  kind: 'user' | 'organization';
  tier: 'free' | 'pro' | 'max' | 'enterprise';
  concurrencyCap: number | null;
  balanceCredits: number;
  heldCredits: number;
  createdAt: Date;
  user: { id: number; email: string } | null;
  key: { id: number; name: string } | null;
}

export async function readAccount(db: Pool, principal: ManagementPrincipal): Promise<AccountRecord | undefined> {
  const account = await db.query<{
    id: number; name: string; kind: AccountRecord['kind']; tier: AccountRecord['tier']; concurrency_cap: number | null;
    balance_credits: number; held_credits: number; created_at: Date;
  }>('SELECT id, name, kind, tier, concurrency_cap, balance_credits, held_credits, created_at FROM accounts WHERE id = $1', [principal.accountId]);
  const row = account.rows[0];
  if (!row) return undefined;
  let user: AccountRecord['user'] = null;
  if (principal.userId !== undefined) {
    const found = await db.query<{ id: number; email: string }>('SELECT id, email FROM console_users WHERE id = $1 AND account_id = $2', [principal.userId, principal.accountId]);
    if (found.rows[0]) user = { id: Number(found.rows[0].id), email: found.rows[0].email };
  }
  let key: AccountRecord['key'] = null;
  if (principal.keyId !== undefined) {
    const found = await db.query<{ id: number; name: string }>('SELECT id, name FROM api_keys WHERE id = $1 AND account_id = $2', [principal.keyId, principal.accountId]);
    if (found.rows[0]) key = { id: Number(found.rows[0].id), name: found.rows[0].name };
  }
  return {
    id: Number(row.id), name: row.name, kind: row.kind, tier: row.tier, concurrencyCap: row.concurrency_cap,
    balanceCredits: row.balance_credits, heldCredits: row.held_credits, createdAt: row.created_at, user, key,
  };
}
