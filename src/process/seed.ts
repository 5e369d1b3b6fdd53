/**
 * Operator primitives shared by the admin CLI, the first-start bootstrap and tests:
 * accounts, top-ups, groups, upstream accounts, console users.
 */
import type { Pool } from 'pg';
import type { SecretCrypto } from '../auth/secret-crypto';
import { hashPassword } from '../auth/hash-password';
import { insertAccount, type AccountTier } from '../db/repositories/accounts';
import { insertConsoleUser } from '../db/repositories/console-users';
import { insertGroup } from '../db/repositories/groups';
import { insertUpstreamAccount } from '../db/repositories/upstream-accounts';
import type { Protocol } from '../ir/protocol';

// The primitives that live with their owners, offered here too for the CLI, bootstrap and tests.
export { hashPassword } from '../auth/hash-password';
export { topUp } from '../billing/top-up';
export { findGroupId } from '../db/repositories/groups';

export type Tier = AccountTier;

export function createAccount(
  db: Pool,
  input: { name: string; tier: Tier; concurrencyCap?: number | null; organization?: boolean },
): Promise<number> {
  return insertAccount(db, {
    name: input.name,
    kind: input.organization ? 'organization' : 'user',
    tier: input.tier,
    concurrencyCap: input.concurrencyCap ?? null,
  });
}

/** Public unless said otherwise (the bootstrap's groups, tests); the operator API asks for private. */
export function createGroup(db: Pool, input: { name: string; family?: string | null; visibility?: 'public' | 'private' }): Promise<number> {
  return insertGroup(db, { name: input.name, family: input.family ?? null, visibility: input.visibility ?? 'public' });
}

export function addUpstreamAccount(
  db: Pool,
  crypto: SecretCrypto,
  input: {
    groupId: number;
    name?: string;
    protocol: Protocol;
    baseUrl: string;
    apiKey: string;
    models: string[];
    priority?: number;
    weight?: number;
    /** The provider preset (src/upstream/provider-presets.ts) and Azure's api-version. */
    provider?: string;
    apiVersion?: string;
  },
): Promise<number> {
  return insertUpstreamAccount(db, {
    groupId: input.groupId,
    name: input.name ?? `${input.provider ?? input.protocol}@${input.baseUrl}`,
    protocol: input.protocol,
    baseUrl: input.baseUrl.replace(/\/+$/, ''),
    credentialEncrypted: crypto.encrypt(input.apiKey),
    models: input.models,
    priority: input.priority ?? 0,
    weight: input.weight ?? 1,
    provider: input.provider ?? null,
    apiVersion: input.apiVersion ?? null,
  });
}

export async function createConsoleUser(db: Pool, input: { accountId: number; email: string; password: string }): Promise<number> {
  return insertConsoleUser(db, {
    accountId: input.accountId,
    email: input.email.toLowerCase(),
    passwordHash: await hashPassword(input.password),
  });
}
