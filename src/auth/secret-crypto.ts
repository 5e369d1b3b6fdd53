/**
 * Secrets at rest: an HMAC-SHA256 for lookup (the database never sees a plaintext key) and
 * AES-256-GCM ciphertext for the reveal operation and upstream credentials. Both keys come from
 * configuration, never from the database.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface SecretCrypto {
  hmac(secret: string): string;
  /** Constant-time comparison of two HMAC hex strings. */
  hmacEquals(a: string, b: string): boolean;
  encrypt(plaintext: string): string;
  decrypt(ciphertext: string): string;
}

export function createSecretCrypto(encryptionKey: Buffer, hmacSecret: string): SecretCrypto {
  if (encryptionKey.length !== 32) throw new Error('encryption key must be 32 bytes');
  return {
    hmac: (secret) => createHmac('sha256', hmacSecret).update(secret, 'utf8').digest('hex'),
    hmacEquals(a, b) {
      const left = Buffer.from(a, 'hex');
      const right = Buffer.from(b, 'hex');
      return left.length === right.length && timingSafeEqual(left, right);
    },
    encrypt(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `v1.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${body.toString('base64url')}`;
    },
    decrypt(ciphertext) {
      const [version, iv, tag, body] = ciphertext.split('.');
      if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unrecognized ciphertext');
      const decipher = createDecipheriv('aes-256-gcm', encryptionKey, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
