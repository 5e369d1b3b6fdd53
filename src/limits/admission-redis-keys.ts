/** The six Redis keys one admission touches, in the order admit-6.lua and settle-6.lua expect. */
import type { RedisKeys } from '../redis/keys';

export function admissionRedisKeys(keys: RedisKeys, accountId: number, keyId: number): string[] {
  return [
    keys.account(accountId),
    keys.accountLeases(accountId),
    keys.accountReservations(accountId),
    keys.apiKey(accountId, keyId),
    keys.apiKeySpendWindow(accountId, keyId),
    keys.apiKeySpendIndex(accountId, keyId),
  ];
}
