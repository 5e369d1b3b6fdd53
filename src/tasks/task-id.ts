/** Task ids: `task_` + 32 base62 characters from a CSPRNG (about 190 bits): unguessable. */
import { unbiasedBase62 } from '../http/random-pool';

const LENGTH = 32;

export function newTaskId(): string {
  return `task_${unbiasedBase62(LENGTH)}`;
}

/** Syntactic check before any lookup (a malformed id is simply not found). */
export function looksLikeTaskId(value: string): boolean {
  return /^task_[A-Za-z0-9]{16,64}$/.test(value);
}
