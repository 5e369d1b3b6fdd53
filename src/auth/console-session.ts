/**
 * Console sessions: the cookie holds a random token; the database holds only its SHA-256, so a
 * leaked table opens no session. Each session has its own CSRF token, required on state changes.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Pool } from 'pg';
import {
  deleteConsoleSessionByHash,
  findLiveConsoleSession,
  insertConsoleSession,
  type ConsoleSessionRecord,
} from '../db/repositories/console-users';

export const SESSION_COOKIE = 'gw_session';
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export type ConsoleSession = ConsoleSessionRecord;

export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export async function createConsoleSession(
  db: Pool,
  userId: number,
  nowMs: number,
): Promise<{ token: string; csrfToken: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(24).toString('base64url');
  const expiresAt = new Date(nowMs + SESSION_TTL_MS);
  await insertConsoleSession(db, { idHash: hashSessionToken(token), userId, csrfToken, expiresAt });
  return { token, csrfToken, expiresAt };
}

export function findConsoleSession(db: Pool, token: string, nowMs: number): Promise<ConsoleSession | undefined> {
  return findLiveConsoleSession(db, hashSessionToken(token), new Date(nowMs));
}

export async function deleteConsoleSession(db: Pool, token: string): Promise<void> {
  await deleteConsoleSessionByHash(db, hashSessionToken(token));
}

export function csrfTokenMatches(expected: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const left = Buffer.from(expected, 'utf8');
  const right = Buffer.from(presented, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
