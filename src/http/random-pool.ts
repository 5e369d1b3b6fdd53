/**
 * Random bytes for ids, drawn from a buffer refilled 4 KiB at a time: `randomBytes` per id costs about
 * 2 µs (a call into OpenSSL each time), a slice of the pool under 0.1 µs. Same source (the CSPRNG),
 * same bytes, only batched; it holds no application state, like node's own `randomUUID` cache.
 */
import { randomFillSync, randomInt } from 'node:crypto';

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

/** `count` fresh random bytes (a view of the pool: read it before the next call). */
function take(count: number): { buffer: Buffer; start: number } {
  if (count > POOL_BYTES) return { buffer: randomFillSync(Buffer.alloc(count)), start: 0 };
  if (offset + count > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const start = offset;
  offset += count;
  return { buffer: pool, start };
}

/** `bytes` random bytes as 2×`bytes` hex characters. */
export function randomHex(bytes: number): string {
  const { buffer, start } = take(bytes);
  return buffer.toString('hex', start, start + bytes);
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * `length` characters of base62 with no modulo bias (one `randomInt` each): for secrets and ids
 * that must be unguessable (key secrets, task ids), where the pooled form's slight bias is not wanted.
 */
export function unbiasedBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** `length` characters of base62 (one random byte each, modulo 62). */
export function randomBase62(length: number): string {
  const { buffer, start } = take(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[buffer[start + i] % 62];
  return out;
}
