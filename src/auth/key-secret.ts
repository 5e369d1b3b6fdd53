/** Key secrets: `sk-svc-` + 48 base62 characters from a CSPRNG; masked as `sk-svc-...****abcd`. */
import { unbiasedBase62 } from '../http/random-pool';

export const KEY_PREFIX = 'sk-svc-';
const SECRET_LENGTH = 48;

export function generateKeySecret(): string {
  return KEY_PREFIX + unbiasedBase62(SECRET_LENGTH);
}

/** A caller-supplied secret must look like ours: prefix, 24–128 characters of `[A-Za-z0-9_-]` after it. */
export function validateCustomKey(secret: string): string | undefined {
  if (!secret.startsWith(KEY_PREFIX)) return `custom_key must start with ${KEY_PREFIX}`;
  const body = secret.slice(KEY_PREFIX.length);
  if (body.length < 24 || body.length > 128) return 'custom_key must have 24 to 128 characters after the prefix';
  if (!/^[A-Za-z0-9_-]+$/.test(body)) return 'custom_key may contain only letters, digits, _ and - after the prefix';
  return undefined;
}

export function maskKey(last4: string): string {
  return `${KEY_PREFIX}...****${last4}`;
}

/** Syntactic check before any lookup: saves a cache miss on garbage. */
export function looksLikeKey(secret: string): boolean {
  return secret.startsWith(KEY_PREFIX) && secret.length >= KEY_PREFIX.length + 24 && secret.length <= KEY_PREFIX.length + 128;
}
