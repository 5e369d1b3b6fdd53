/** The only source of ids and time the codecs see. */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../dependencies';
import type { CodecContext } from '../protocols/codec';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[bytes[i] % 62];
  return out;
}

export function createCodecContext(clock: Clock): CodecContext {
  return {
    newId: (prefix) => `${prefix}${randomToken(24)}`,
    now: () => Math.floor(clock.now() / 1000),
  };
}
