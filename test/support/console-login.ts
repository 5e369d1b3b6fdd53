/** A console login made directly in the database (no password round trip): its session cookie and CSRF token. */
import type { Pool } from 'pg';
import { createConsoleSession, SESSION_COOKIE } from '../../src/auth/console-session';
import { createConsoleUser } from '../../src/process/seed';

export interface ConsoleLogin {
  userId: number;
  cookie: string;
  csrf: string;
}

export async function consoleLogin(
  db: Pool,
  accountId: number,
  email: string,
  role: 'operator' | 'member' = 'member',
): Promise<ConsoleLogin> {
  const userId = await createConsoleUser(db, { accountId, email, password: 'a long password' });
  if (role === 'operator') await db.query("UPDATE console_users SET role = 'operator' WHERE id = $1", [userId]);
  const session = await createConsoleSession(db, userId, Date.now());
  return { userId, cookie: `${SESSION_COOKIE}=${session.token}`, csrf: session.csrfToken };
}
