/** Checks a password against a `scrypt$<salt b64>$<hash b64>` record (see src/auth/hash-password.ts). */
import { scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

export async function verifyPassword(password: string, record: string): Promise<boolean> {
  const [scheme, saltText, hashText] = record.split('$');
  if (scheme !== 'scrypt' || !saltText || !hashText) return false;
  const expected = Buffer.from(hashText, 'base64');
  if (expected.length === 0) return false;
  const actual = await scrypt(password, Buffer.from(saltText, 'base64'), expected.length);
  return timingSafeEqual(actual, expected);
}
