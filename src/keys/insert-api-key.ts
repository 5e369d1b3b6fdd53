/** Inserts an API key row (the secret stored as HMAC + ciphertext); shared by the API, admin CLI and bootstrap. */
import type { SecretCrypto } from '../auth/secret-crypto';
import type { Queryable } from '../db/queryable';
import { insertKey } from '../db/repositories/api-keys';
import { GatewayError } from '../errors/gateway-error';
import { generateKeySecret } from '../auth/key-secret';

export interface NewApiKey {
  accountId: number;
  groupId: number;
  name: string;
  secret?: string;
  quotaCredits?: number;
  rateLimit5h?: number;
  rateLimit1d?: number;
  rateLimit7d?: number;
  ipWhitelist?: string[];
  ipBlacklist?: string[];
  allowedModels?: string[];
  expiresAt?: Date | null;
}

export interface InsertedApiKey {
  id: number;
  secret: string;
  createdAt: Date;
}

export async function insertApiKey(db: Queryable, crypto: SecretCrypto, key: NewApiKey): Promise<InsertedApiKey> {
  const secret = key.secret ?? generateKeySecret();
  try {
    const inserted = await insertKey(db, {
      accountId: key.accountId,
      groupId: key.groupId,
      name: key.name,
      secretHmac: crypto.hmac(secret),
      secretEncrypted: crypto.encrypt(secret),
      secretLast4: secret.slice(-4),
      quotaCredits: key.quotaCredits ?? 0,
      rateLimit5h: key.rateLimit5h ?? 0,
      rateLimit1d: key.rateLimit1d ?? 0,
      rateLimit7d: key.rateLimit7d ?? 0,
      ipWhitelist: key.ipWhitelist ?? [],
      ipBlacklist: key.ipBlacklist ?? [],
      expiresAt: key.expiresAt ?? null,
      allowedModels: key.allowedModels ?? [],
    });
    return { id: inserted.id, secret, createdAt: inserted.createdAt };
  } catch (error) {
    if ((error as { code?: string }).code === '23505')
      throw new GatewayError('conflict', 'a key with this secret already exists', { param: 'custom_key' });
    throw error;
  }
}
