/**
 * Request-path Redis connections coalesce the commands of one event-loop turn into one socket write
 * (issue 13: the write syscalls were the API's largest cost under load), and still answer in order;
 * a lone command is not held back.
 */
import type Redis from 'ioredis';
import { createRedis } from '../../../src/redis/connection';
import { countSocketWrites, TEST_REDIS_URL } from '../../support/redis';

describe('request-path Redis connection', () => {
  let redis: Redis;
  let patient: Redis;
  beforeAll(async () => {
    redis = createRedis(TEST_REDIS_URL, { name: 'coalesce-test' });
    patient = createRedis(TEST_REDIS_URL, { waits: true, name: 'coalesce-test-waits' });
    await Promise.all([redis.ping(), patient.ping()]);
  });
  afterAll(() => {
    redis.disconnect();
    patient.disconnect();
  });

  it('sends the commands of one turn in one write, answered in order', async () => {
    const writes = countSocketWrites(redis);
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => redis.echo(`m${i}`)));
    expect(replies).toEqual(Array.from({ length: 50 }, (_, i) => `m${i}`));
    expect(writes()).toBe(1);
  });

  it("writes each turn's commands apart: a lone command leaves in its own turn", async () => {
    const writes = countSocketWrites(redis);
    await redis.echo('a');
    await redis.echo('b');
    expect(writes()).toBe(2);
  });

  it('leaves connections that wait (BullMQ, subscribers, blocking reads) as they are', async () => {
    const writes = countSocketWrites(patient);
    await Promise.all([patient.echo('x'), patient.echo('y'), patient.echo('z')]);
    expect(writes()).toBe(3);
  });
});
