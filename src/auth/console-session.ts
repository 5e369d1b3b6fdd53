/**
 * Console sessions: the cookie holds a random token; the database holds only its SHA-256, so a
 * leaked table opens no session. Each session has its own CSRF token, required on state changes.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Pool } from 'pg';

export const SESSION_COOKIE = 'gw_session';
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface ConsoleSession {
  userId: number;
  accountId: number;
  email: string;
  csrfToken: string;
  expiresAt: Date;
}

export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export async function createConsoleSession(db: Pool, userId: number, nowMs: number): Promise<{ token: string; csrfToken: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(24).toString('base64url');
  const expiresAt = new Date(nowMs + SESSION_TTL_MS);
  await db.query('INSERT INTO console_sessions (id_hash, user_id, csrf_token, expires_at) VALUES ($1, $2, $3, $4)',
    [hashSessionToken(token), userId, csrfToken, expiresAt]);
  return { token, csrfToken, expiresAt };
}

export async function findConsoleSession(db: Pool, token: string, nowMs: number): Promise<ConsoleSession | undefined> {
  const result = await db.query<{ user_id: number; account_id: number; email: string; csrf_token: string; expires_at: Date }>(
    `SELECT s.user_id, u.account_id, u.email, s.csrf_token, s.expires_at
       FROM console_sessions s JOIN console_users u ON u.id = s.user_id
      WHERE s.id_hash = $1 AND s.expires_at > $2`,
    [hashSessionToken(token), new Date(nowMs)]);
  const row = result.rows[0];
  if (!row) return undefined;
  return { userId: Number(row.user_id), accountId: Number(row.account_id), email: row.email, csrfToken: row.csrf_token, expiresAt: row.expires_at };
}

export async function deleteConsoleSession(db: Pool, token: string): Promise<void> {
  await db.query('DELETE FROM console_sessions WHERE id_hash = $1', [hashSessionToken(token)]);
}

export function csrfTokenMatches(expected: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const left = Buffer.from(expected, 'utf8');
  const right = Buffer.from(presented, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
