/** Task ids: `task_` + 32 base62 characters from a CSPRNG (about 190 bits): unguessable. */
import { randomInt } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const LENGTH = 32;

export function newTaskId(): string {
  let body = '';
  for (let i = 0; i < LENGTH; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  return `task_${body}`;
}

/** Syntactic check before any lookup (a malformed id is simply not found). */
export function looksLikeTaskId(value: string): boolean {
  return /^task_[A-Za-z0-9]{16,64}$/.test(value);
}
