/**
 * Console users and their sessions (`console_users`, `console_sessions`). A session row holds only
 * the SHA-256 of its cookie token (hashed by the caller), never the token.
 */
import type { Queryable } from '../queryable';

export type ConsoleRole = 'member' | 'operator';

/** The email is stored as given (callers lower-case it). */
export async function insertConsoleUser(db: Queryable, input: { accountId: number; email: string; passwordHash: string }): Promise<number> {
  const result = await db.query<{ id: number }>(
    'INSERT INTO console_users (account_id, email, password_hash) VALUES ($1, $2, $3) RETURNING id',
    [input.accountId, input.email, input.passwordHash],
  );
  return result.rows[0].id;
}

export interface ConsoleUserLogin {
  id: number;
  accountId: number;
  email: string;
  passwordHash: string;
}

export async function findConsoleUserByEmail(db: Queryable, email: string): Promise<ConsoleUserLogin | undefined> {
  const result = await db.query<{ id: number; account_id: number; email: string; password_hash: string }>(
    'SELECT id, account_id, email, password_hash FROM console_users WHERE email = $1',
    [email],
  );
  const row = result.rows[0];
  return row && { id: Number(row.id), accountId: Number(row.account_id), email: row.email, passwordHash: row.password_hash };
}

export async function findConsoleUserOfAccount(
  db: Queryable,
  accountId: number,
  userId: number,
): Promise<{ id: number; email: string } | undefined> {
  const result = await db.query<{ id: number; email: string }>('SELECT id, email FROM console_users WHERE id = $1 AND account_id = $2', [
    userId,
    accountId,
  ]);
  const row = result.rows[0];
  return row && { id: Number(row.id), email: row.email };
}

export async function findConsoleUserRole(db: Queryable, userId: number): Promise<string | undefined> {
  const result = await db.query<{ role: string }>('SELECT role FROM console_users WHERE id = $1', [userId]);
  return result.rows[0]?.role;
}

export async function updateConsoleUserRole(db: Queryable, userId: number, role: ConsoleRole): Promise<void> {
  await db.query('UPDATE console_users SET role = $2 WHERE id = $1', [userId, role]);
}

/** With `expected`, only while the stored record is still that one (a concurrent change wins). */
export async function updatePasswordHash(db: Queryable, userId: number, passwordHash: string, expected?: string): Promise<void> {
  if (expected === undefined) await db.query('UPDATE console_users SET password_hash = $2 WHERE id = $1', [userId, passwordHash]);
  else await db.query('UPDATE console_users SET password_hash = $1 WHERE id = $2 AND password_hash = $3', [passwordHash, userId, expected]);
}

export async function insertConsoleSession(
  db: Queryable,
  session: { idHash: string; userId: number; csrfToken: string; expiresAt: Date },
): Promise<void> {
  await db.query('INSERT INTO console_sessions (id_hash, user_id, csrf_token, expires_at) VALUES ($1, $2, $3, $4)', [
    session.idHash,
    session.userId,
    session.csrfToken,
    session.expiresAt,
  ]);
}

export interface ConsoleSessionRecord {
  userId: number;
  accountId: number;
  email: string;
  csrfToken: string;
  expiresAt: Date;
}

/** The session whose token hashes to `idHash`, unless it expired by `now`. */
export async function findLiveConsoleSession(db: Queryable, idHash: string, now: Date): Promise<ConsoleSessionRecord | undefined> {
  const result = await db.query<{ user_id: number; account_id: number; email: string; csrf_token: string; expires_at: Date }>(
    `SELECT s.user_id, u.account_id, u.email, s.csrf_token, s.expires_at
       FROM console_sessions s JOIN console_users u ON u.id = s.user_id
      WHERE s.id_hash = $1 AND s.expires_at > $2`,
    [idHash, now],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    userId: Number(row.user_id),
    accountId: Number(row.account_id),
    email: row.email,
    csrfToken: row.csrf_token,
    expiresAt: row.expires_at,
  };
}

export async function deleteConsoleSessionByHash(db: Queryable, idHash: string): Promise<void> {
  await db.query('DELETE FROM console_sessions WHERE id_hash = $1', [idHash]);
}
