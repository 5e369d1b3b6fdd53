import { createHash, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LOWER36 = '0123456789abcdefghijklmnopqrstuvwxyz';

function encode(bytes: Buffer, alphabet: string, length: number): string {
  let out = '';
  for (let index = 0; out.length < length; index++) out += alphabet[bytes[index % bytes.length]! % alphabet.length];
  return out;
}

/** A fresh id (response, message and operation ids are unique per answer, like the real APIs'). */
export function randomId(length: number, alphabet: 'base62' | 'lower36' = 'base62'): string {
  return encode(randomBytes(length), alphabet === 'base62' ? BASE62 : LOWER36, length);
}

/** An id derived from `seed`, so the same request yields the same tool-call ids. */
export function stableId(seed: string, length: number): string {
  return encode(createHash('sha256').update(seed).digest(), BASE62, length);
}
