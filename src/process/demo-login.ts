/**
 * The quick start's console login: an operator of the local install on the bootstrap key's account.
 * Its password is generated once per install and kept beside the other generated secrets
 * (`console-login.json` next to SECRETS_FILE, mode 0600), so no install shares a published password;
 * CONSOLE_DEMO_PASSWORD sets it instead. A demo user left with the password earlier versions
 * published is moved to the generated one.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Pool } from 'pg';
import { hashPassword } from '../auth/hash-password';
import { verifyPassword } from '../auth/verify-password';
import { findBootstrapKey } from '../db/repositories/api-keys';
import { findConsoleUserByEmail, updateConsoleUserRole, updatePasswordHash } from '../db/repositories/console-users';
import { createConsoleUser } from './seed';

/** The password earlier versions printed in their README for every install. */
const PUBLISHED_PASSWORD = 'demo-console-password';

export function demoLoginFile(secretsFile: string): string {
  return path.join(path.dirname(path.resolve(secretsFile)), 'console-login.json');
}

/** The install's demo password: from the file beside the secrets, generated (and written) on first use. */
export function demoPassword(secretsFile: string): string {
  const file = demoLoginFile(secretsFile);
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { password?: unknown };
    if (typeof stored.password === 'string' && stored.password.length >= 8) return stored.password;
  }
  const password = randomBytes(12).toString('base64url');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ password }, null, 2), { mode: 0o600 });
  return password;
}

/** Creates the demo login once; returns the banner's line about it. */
export async function ensureDemoLogin(db: Pool, options: { email: string; password?: string; secretsFile: string }): Promise<string> {
  const email = options.email.toLowerCase();
  const password = options.password ?? demoPassword(options.secretsFile);
  const where = options.password
    ? '(CONSOLE_DEMO_PASSWORD)'
    : `(generated for this install, kept in ${path.relative(process.cwd(), demoLoginFile(options.secretsFile)) || demoLoginFile(options.secretsFile)})`;
  const user = await findConsoleUserByEmail(db, email);
  if (user) {
    if (await verifyPassword(PUBLISHED_PASSWORD, user.passwordHash)) {
      await updatePasswordHash(db, user.id, await hashPassword(password));
    } else if (!(await verifyPassword(password, user.passwordHash))) {
      return `login ${email} (its password was changed; not shown)`;
    }
    return `login ${email} / ${password} ${where}`;
  }
  const bootstrapKey = await findBootstrapKey(db);
  if (!bootstrapKey) return '(no demo login: create one with npm run admin -- user create --role operator)';
  const userId = await createConsoleUser(db, { accountId: bootstrapKey.accountId, email, password });
  await updateConsoleUserRole(db, userId, 'operator');
  return `login ${email} / ${password} ${where}, operator of this install`;
}
