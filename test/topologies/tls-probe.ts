/**
 * Run as its own process (NODE_EXTRA_CA_CERTS trusts the test's CA, read by Node at start only): connects
 * with createRedis to the target in argv[2] (a RedisTarget as JSON), as the request path and as a waiting
 * connection, runs a script, a MULTI, a stream append and a pub/sub round trip, and prints `TLS OK <kind>`.
 */
import type { RedisTarget } from '../../src/config';
import { createRedis } from '../../src/redis/connection';
import { createRedisKeys } from '../../src/redis/keys';

async function main(): Promise<void> {
  const target = JSON.parse(process.argv[2] ?? '{}') as RedisTarget;
  const keys = createRedisKeys(`tls${process.pid}`);
  const commands = createRedis(target, { name: 'tls-probe' });
  const subscriber = createRedis(target, { waits: true, name: 'tls-probe-subscriber' });
  const heard = new Promise<string>((resolve) => subscriber.on('message', (_channel: string, message: string) => resolve(message)));
  await subscriber.subscribe(keys.billingSettledChannel());
  const counted = await commands.eval("return redis.call('HINCRBY', KEYS[1], 'n', 1)", 1, keys.account(7));
  await commands.multi().hget(keys.account(7), 'n').xadd(keys.accountUsageStream(7), '*', 'e', '{}').exec();
  await commands.publish(keys.billingSettledChannel(), 'over tls');
  const message = await heard;
  if (counted !== 1 || message !== 'over tls') throw new Error(`unexpected: ${String(counted)} ${message}`);
  process.stdout.write(`TLS OK ${target.kind}\n`);
  commands.disconnect();
  subscriber.disconnect();
}

main().catch((error: unknown) => {
  process.stderr.write(`tls probe failed: ${String(error)}\n`);
  process.exit(1);
});
