/** The account context of `GET /api/v1/me/account`: the account, and who is asking (console user or key). */
import type { Pool } from 'pg';
import type { ManagementPrincipal } from '../auth/management-auth';
import { findAccount, type AccountRecord as StoredAccount } from '../db/repositories/accounts';
import { findKeyName } from '../db/repositories/api-keys';
import { findConsoleUserOfAccount } from '../db/repositories/console-users';

export interface AccountRecord extends StoredAccount {
  user: { id: number; email: string } | null;
  key: { id: number; name: string } | null;
}

export async function readAccount(db: Pool, principal: ManagementPrincipal): Promise<AccountRecord | undefined> {
  const account = await findAccount(db, principal.accountId);
  if (!account) return undefined;
  const user = principal.userId === undefined ? undefined : await findConsoleUserOfAccount(db, principal.accountId, principal.userId);
  const key = principal.keyId === undefined ? undefined : await findKeyName(db, principal.accountId, principal.keyId);
  return { ...account, user: user ?? null, key: key ?? null };
}
