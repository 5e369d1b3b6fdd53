/** Inserts an API key row (the secret stored as HMAC + ciphertext); shared by the API, admin CLI and bootstrap. */
import type { Pool, PoolClient } from 'pg';
import type { SecretCrypto } from '../auth/secret-crypto';
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

export async function insertApiKey(db: Pool | PoolClient, crypto: SecretCrypto, key: NewApiKey): Promise<InsertedApiKey> {
  const secret = key.secret ?? generateKeySecret();
  try {
    const result = await db.query<{ id: number; created_at: Date }>(
      `INSERT INTO api_keys (account_id, group_id, name, secret_hmac, secret_encrypted, secret_last4, quota_credits,
         rate_limit_5h, rate_limit_1d, rate_limit_7d, ip_whitelist, ip_blacklist, expires_at, allowed_models)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id, created_at`,
      [key.accountId, key.groupId, key.name, crypto.hmac(secret), crypto.encrypt(secret), secret.slice(-4),
        key.quotaCredits ?? 0, key.rateLimit5h ?? 0, key.rateLimit1d ?? 0, key.rateLimit7d ?? 0,
        key.ipWhitelist ?? [], key.ipBlacklist ?? [], key.expiresAt ?? null, key.allowedModels ?? []],
    );
    return { id: result.rows[0].id, secret, createdAt: result.rows[0].created_at };
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw new GatewayError('conflict', 'a key with this secret already exists', { param: 'custom_key' });
    throw error;
  }
}
