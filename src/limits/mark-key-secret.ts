/**
 * Records in Redis which secret may use a key (`sh` in the key's admission hash), checked inside the
 * admission script. Pub/sub empties every process's key cache, but a message can arrive a moment
 * after the next request; this check makes rotate, revoke, disable and delete take effect on the
 * very next admission on every process. `null`: no secret may use the key any more.
 */
import type { Dependencies } from '../dependencies';
import { COUNTER_IDLE_TTL_MS } from './spend-windows';

export async function markKeySecret(
  deps: Pick<Dependencies, 'redis' | 'redisKeys'>,
  accountId: number,
  keyId: number,
  secretHmac: string | null,
): Promise<void> {
  const key = deps.redisKeys.apiKey(accountId, keyId);
  await deps.redis
    .multi()
    .hset(key, 'sh', secretHmac ?? '-')
    .pexpire(key, COUNTER_IDLE_TTL_MS)
    .exec();
}
