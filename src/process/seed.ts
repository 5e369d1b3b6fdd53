/**
 * Operator primitives shared by the admin CLI, the first-start bootstrap and tests:
 * accounts, top-ups, groups, upstream accounts, console users.
 */
import type { Pool } from 'pg';
import type { SecretCrypto } from '../auth/secret-crypto';
import { hashPassword } from '../auth/hash-password';
import type { Protocol } from '../ir/protocol';

// The primitives that live with their owners, offered here too for the CLI, bootstrap and tests.
export { hashPassword } from '../auth/hash-password';
export { topUp } from '../billing/top-up';
export { findGroupId } from '../keys/find-group-id';

export type Tier = 'free' | 'pro' | 'max' | 'enterprise';

export async function createAccount(db: Pool, input: { name: string; tier: Tier; concurrencyCap?: number | null; organization?: boolean }): Promise<number> {
  const result = await db.query<{ id: number }>(
    'INSERT INTO accounts (name, kind, tier, concurrency_cap) VALUES ($1, $2, $3, $4) RETURNING id',
    [input.name, input.organization ? 'organization' : 'user', input.tier, input.concurrencyCap ?? null],
  );
  return result.rows[0].id;
}

/** Public unless said otherwise (the bootstrap's groups, tests); the operator API asks for private. */
export async function createGroup(db: Pool, input: { name: string; family?: string | null; visibility?: 'public' | 'private' }): Promise<number> {
  const result = await db.query<{ id: number }>(
    'INSERT INTO routing_groups (name, family, visibility) VALUES ($1, $2, $3) RETURNING id', [input.name, input.family ?? null, input.visibility ?? 'public']);
  return result.rows[0].id;
}

export async function addUpstreamAccount(db: Pool, crypto: SecretCrypto, input: {
  groupId: number; name?: string; protocol: Protocol; baseUrl: string; apiKey: string; models: string[]; priority?: number; weight?: number;
  /** The provider preset (src/upstream/provider-presets.ts) and Azure's api-version. */
  provider?: string; apiVersion?: string;
}): Promise<number> {
  const result = await db.query<{ id: number }>(
    `INSERT INTO upstream_accounts (group_id, name, protocol, base_url, credential_encrypted, models, priority, weight, provider, api_version)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
    [input.groupId, input.name ?? `${input.provider ?? input.protocol}@${input.baseUrl}`, input.protocol, input.baseUrl.replace(/\/+$/, ''),
      crypto.encrypt(input.apiKey), input.models, input.priority ?? 0, input.weight ?? 1, input.provider ?? null, input.apiVersion ?? null],
  );
  return result.rows[0].id;
}

export async function createConsoleUser(db: Pool, input: { accountId: number; email: string; password: string }): Promise<number> {
  const result = await db.query<{ id: number }>(
    'INSERT INTO console_users (account_id, email, password_hash) VALUES ($1, $2, $3) RETURNING id',
    [input.accountId, input.email.toLowerCase(), await hashPassword(input.password)],
  );
  return result.rows[0].id;
}
