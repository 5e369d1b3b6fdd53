/**
 * Request-path Redis connections coalesce the commands of one event-loop turn into one socket write
 * (issue 13: the write syscalls were the API's largest cost under load), and still answer in order;
 * a lone command is not held back.
 */
import type { Socket } from 'node:net';
import type Redis from 'ioredis';
import { createRedis } from '../../../src/redis/connection';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function countWrites(socket: Socket): () => number {
  let writes = 0;
  const handle = (socket as unknown as { _handle: { writev: (...args: unknown[]) => unknown; writeUtf8String: (...args: unknown[]) => unknown; writeBuffer: (...args: unknown[]) => unknown } })._handle;
  for (const name of ['writev', 'writeUtf8String', 'writeBuffer'] as const) {
    const original = handle[name].bind(handle);
    handle[name] = (...args: unknown[]) => { writes++; return original(...args); };
  }
  return () => writes;
}

describe('request-path Redis connection', () => {
  let redis: Redis;
  let patient: Redis;
  beforeAll(async () => {
    redis = createRedis(REDIS_URL, { name: 'coalesce-test' });
    patient = createRedis(REDIS_URL, { waits: true, name: 'coalesce-test-waits' });
    await Promise.all([redis.ping(), patient.ping()]);
  });
  afterAll(() => { redis.disconnect(); patient.disconnect(); });

  it('sends the commands of one turn in one write, answered in order', async () => {
    const writes = countWrites(redis.stream as Socket);
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => redis.echo(`m${i}`)));
    expect(replies).toEqual(Array.from({ length: 50 }, (_, i) => `m${i}`));
    expect(writes()).toBe(1);
  });

  it('writes each turn\'s commands apart: a lone command leaves in its own turn', async () => {
    const writes = countWrites(redis.stream as Socket);
    await redis.echo('a');
    await redis.echo('b');
    expect(writes()).toBe(2);
  });

  it('leaves connections that wait (BullMQ, subscribers, blocking reads) as they are', async () => {
    const writes = countWrites(patient.stream as Socket);
    await Promise.all([patient.echo('x'), patient.echo('y'), patient.echo('z')]);
    expect(writes()).toBe(3);
  });
});
