/**
 * Checks a password against a `scrypt$N=…,r=…,p=…$<salt b64>$<hash b64>` record, or a legacy
 * `scrypt$<salt b64>$<hash b64>` one (N=2^14, r=8, p=1): see src/auth/hash-password.ts.
 */
import { timingSafeEqual } from 'node:crypto';
import { LEGACY_SCRYPT_COST, scryptHash, type ScryptCost } from './hash-password';

/** Bounds what a stored record can make the process spend (a record is ours, but not trusted blindly). */
const MAX_N = 2 ** 20;

function parseCost(text: string): ScryptCost | undefined {
  const match = /^N=(\d{1,8}),r=(\d{1,2}),p=(\d{1,2})$/.exec(text);
  if (!match) return undefined;
  const [N, r, p] = match.slice(1).map(Number);
  if (N < 2 || N > MAX_N || (N & (N - 1)) !== 0 || r < 1 || p < 1) return undefined;
  return { N, r, p };
}

export async function verifyPassword(password: string, record: string): Promise<boolean> {
  const parts = record.split('$');
  if (parts[0] !== 'scrypt') return false;
  const [cost, saltText, hashText] =
    parts.length === 4 ? [parseCost(parts[1]), parts[2], parts[3]] : [LEGACY_SCRYPT_COST, parts[1], parts[2]];
  if (!cost || !saltText || !hashText || parts.length > 4) return false;
  const expected = Buffer.from(hashText, 'base64');
  if (expected.length === 0) return false;
  const actual = await scryptHash(password, Buffer.from(saltText, 'base64'), expected.length, cost);
  return timingSafeEqual(actual, expected);
}
