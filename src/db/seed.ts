/**
 * Operator primitives shared by the admin CLI, the first-start bootstrap and tests:
 * accounts, top-ups, groups, upstream accounts, console users.
 */
import { scrypt as scryptCallback, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { Pool } from 'pg';
import type { SecretCrypto } from '../auth/secret-crypto';
import { applyLedgerEntry } from '../billing/ledger';
import { inTransaction } from './transaction';
import type { Protocol } from '../ir/protocol';

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

export type Tier = 'free' | 'pro' | 'max' | 'enterprise';

export async function createAccount(db: Pool, input: { name: string; tier: Tier; concurrencyCap?: number | null; organization?: boolean }): Promise<number> {
  const result = await db.query<{ id: number }>(
    'INSERT INTO accounts (name, kind, tier, concurrency_cap) VALUES ($1, $2, $3, $4) RETURNING id',
    [input.name, input.organization ? 'organization' : 'user', input.tier, input.concurrencyCap ?? null],
  );
  return result.rows[0].id;
}

/** Adds credits through the ledger; returns the balance after. */
export async function topUp(db: Pool, accountId: number, credits: number, reference: string | null = null, description = 'top-up'): Promise<number> {
  const result = await inTransaction(db, (client) => applyLedgerEntry(client, { accountId, kind: 'topup', amountCredits: credits, reference, description }));
  return result.balanceAfter;
}

export async function createGroup(db: Pool, input: { name: string; family?: string | null }): Promise<number> {
  const result = await db.query<{ id: number }>(
    'INSERT INTO routing_groups (name, family) VALUES ($1, $2) RETURNING id', [input.name, input.family ?? null]);
  return result.rows[0].id;
}

export async function findGroupId(db: Pool, idOrName: string | number): Promise<number | undefined> {
  const asNumber = typeof idOrName === 'number' ? idOrName : /^\d+$/.test(idOrName) ? Number(idOrName) : undefined;
  const result = asNumber !== undefined
    ? await db.query<{ id: number }>('SELECT id FROM routing_groups WHERE id = $1', [asNumber])
    : await db.query<{ id: number }>('SELECT id FROM routing_groups WHERE name = $1', [idOrName]);
  return result.rows[0]?.id;
}

export async function addUpstreamAccount(db: Pool, crypto: SecretCrypto, input: {
  groupId: number; name?: string; protocol: Protocol; baseUrl: string; apiKey: string; models: string[]; priority?: number; weight?: number;
}): Promise<number> {
  const result = await db.query<{ id: number }>(
    `INSERT INTO upstream_accounts (group_id, name, protocol, base_url, credential_encrypted, models, priority, weight)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
    [input.groupId, input.name ?? `${input.protocol}@${input.baseUrl}`, input.protocol, input.baseUrl.replace(/\/+$/, ''),
      crypto.encrypt(input.apiKey), input.models, input.priority ?? 0, input.weight ?? 1],
  );
  return result.rows[0].id;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 64);
  return `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function createConsoleUser(db: Pool, input: { accountId: number; email: string; password: string }): Promise<number> {
  const result = await db.query<{ id: number }>(
    'INSERT INTO console_users (account_id, email, password_hash) VALUES ($1, $2, $3) RETURNING id',
    [input.accountId, input.email.toLowerCase(), await hashPassword(input.password)],
  );
  return result.rows[0].id;
}
