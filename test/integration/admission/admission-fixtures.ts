/** Shared by the admission and keys integration tests: seeded accounts and keys, a movable clock. */
import type { AuthenticatedKey } from '../../../src/auth/authenticated-key';
import { loadAuthenticatedKeyById } from '../../../src/auth/load-authenticated-key';
import { createAccount, createGroup, findGroupId, topUp, type Tier } from '../../../src/process/seed';
import type { Clock, Dependencies } from '../../../src/dependencies';
import { insertApiKey, type NewApiKey } from '../../../src/keys/insert-api-key';

export class FakeClock implements Clock {
  constructor(public ms: number) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): number {
    this.ms += ms;
    return this.ms;
  }
}

/** A start time 10 s into a minute, so minute-bucket arithmetic in assertions is unambiguous. */
export function minuteAlignedStart(offsetSeconds = 10): number {
  return Math.floor(Date.now() / 60_000) * 60_000 + offsetSeconds * 1000;
}

export interface SeededKey {
  accountId: number;
  groupId: number;
  keyId: number;
  secret: string;
}

export interface SeedOptions {
  tier?: Tier;
  organization?: boolean;
  concurrencyCap?: number;
  balanceCredits?: number;
  accountId?: number;
  group?: string;
  key?: Partial<Omit<NewApiKey, 'accountId' | 'groupId'>>;
}

export async function seedKey(deps: Dependencies, options: SeedOptions = {}): Promise<SeededKey> {
  const accountId =
    options.accountId ??
    (await createAccount(deps.db, {
      name: `account-${Math.random().toString(36).slice(2)}`,
      tier: options.tier ?? 'pro',
      organization: options.organization,
      concurrencyCap: options.concurrencyCap,
    }));
  if (options.accountId === undefined && (options.balanceCredits ?? 100_000_000) > 0)
    await topUp(deps.db, accountId, options.balanceCredits ?? 100_000_000);
  const groupName = options.group ?? 'default';
  const groupId = (await findGroupId(deps.db, groupName)) ?? (await createGroup(deps.db, { name: groupName }));
  const inserted = await insertApiKey(deps.db, deps.crypto, { name: 'test key', ...options.key, accountId, groupId });
  return { accountId, groupId, keyId: inserted.id, secret: inserted.secret };
}

export async function authenticatedKey(deps: Dependencies, keyId: number, nowMs = deps.clock.now()): Promise<AuthenticatedKey> {
  const key = await loadAuthenticatedKeyById(deps.db, keyId, nowMs);
  if (!key) throw new Error(`key ${keyId} not found`);
  return key;
}

export function withClock<T extends Dependencies>(deps: T, clock: Clock): T {
  return { ...deps, clock };
}
