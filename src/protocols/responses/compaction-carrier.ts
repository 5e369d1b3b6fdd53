/**
 * The gateway's own `compaction` item payload (issue 25): on a translated family the gateway
 * compacts a conversation itself, and the summary travels back to the client inside the item's
 * `encrypted_content`. AES-256-GCM with a key derived from the gateway's encryption key and the
 * key's account as additional data: the client cannot read it, an altered carrier or one issued to
 * another account does not open. Carriers are told from a provider's own payload by their prefix.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { GatewayError } from '../../errors/gateway-error';

const PREFIX = 'gwcmp1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The carrier key: HKDF-SHA256 of the gateway's encryption key, bound to this one use. */
export function deriveCompactionKey(encryptionKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', encryptionKey, Buffer.alloc(0), 'responses compaction carrier v1', 32));
}

export function isGatewayCompaction(encryptedContent: unknown): encryptedContent is string {
  return typeof encryptedContent === 'string' && encryptedContent.startsWith(PREFIX);
}

function additionalData(accountId: number): Buffer {
  return Buffer.from(`account:${accountId}`, 'utf8');
}

export function sealCompaction(key: Buffer, accountId: number, summary: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(additionalData(accountId));
  const sealed = Buffer.concat([cipher.update(JSON.stringify({ summary }), 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
}

/** The summary of a carrier issued to this account; a 400 naming the item otherwise. */
export function openCompaction(key: Buffer, accountId: number, carrier: string, param: string): string {
  const refused = () =>
    new GatewayError(
      'invalid_request',
      `Invalid '${param}': this compaction item was not issued by the gateway to this account, or it was altered`,
      { param },
    );
  const raw = Buffer.from(carrier.slice(PREFIX.length), 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) throw refused();
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(additionalData(accountId));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    const parsed = JSON.parse(plain) as { summary?: unknown };
    if (typeof parsed.summary !== 'string') throw refused();
    return parsed.summary;
  } catch {
    throw refused();
  }
}
