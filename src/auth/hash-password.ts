/**
 * Console passwords: scrypt at OWASP's cost (N=2^17, r=8, p=1, 128 MiB), stored as
 * `scrypt$N=131072,r=8,p=1$<salt b64>$<hash b64>`. Records from before the parameters were written
 * (`scrypt$<salt>$<hash>`) are N=2^14 and still verify; the login rehashes them (needsRehash).
 */
import { scrypt as scryptCallback, randomBytes, type ScryptOptions } from 'node:crypto';

export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

export const PASSWORD_SCRYPT_COST: ScryptCost = { N: 2 ** 17, r: 8, p: 1 };
/** What a record without parameters was hashed with. */
export const LEGACY_SCRYPT_COST: ScryptCost = { N: 2 ** 14, r: 8, p: 1 };
const KEY_LENGTH = 64;

/** scrypt's working memory is 128·N·r bytes; Node refuses anything above `maxmem` (32 MiB by default). */
export function scryptHash(password: string, salt: Buffer, keyLength: number, cost: ScryptCost): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 128 * cost.N * cost.r * cost.p + 32 * 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

export function formatCost(cost: ScryptCost): string {
  return `N=${cost.N},r=${cost.r},p=${cost.p}`;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptHash(password, salt, KEY_LENGTH, PASSWORD_SCRYPT_COST);
  return `scrypt$${formatCost(PASSWORD_SCRYPT_COST)}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** Whether a record was hashed below today's cost (to be rehashed at its next successful login). */
export function needsRehash(record: string): boolean {
  return !record.startsWith(`scrypt$${formatCost(PASSWORD_SCRYPT_COST)}$`);
}
