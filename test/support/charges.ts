/**
 * What a charge produces on the request path: an entry in the Redis usage stream of the account's
 * shard (the settlement script appends it with the counters; the billing worker, which e2e gateways
 * do not run, turns it into ledger rows later). Counting ledger rows in an e2e test proves nothing.
 */
import type { TestGateway } from './gateway';

export function chargesRecorded(gateway: TestGateway, accountId = gateway.accountId): Promise<number> {
  return gateway.deps.redis.xlen(gateway.deps.redisKeys.accountUsageStream(accountId));
}

/**
 * Runs `refused`, then `control` (a call that is charged, on the same account); only the control's
 * charge may appear. The control shows the count moves when a call is charged, and that a charge of
 * the refused calls, made on their request path before the control was sent, would have been seen.
 */
export async function expectNothingCharged(
  gateway: TestGateway,
  refused: () => Promise<void>,
  control: () => Promise<void>,
): Promise<void> {
  const before = await chargesRecorded(gateway);
  await refused();
  await control();
  const deadline = Date.now() + 5_000;
  while ((await chargesRecorded(gateway)) === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(await chargesRecorded(gateway)).toBe(before + 1);
}
