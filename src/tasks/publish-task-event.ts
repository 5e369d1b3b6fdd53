/** Publishes a committed state change on the task's Redis channel (after COMMIT, never before). */
import type Redis from 'ioredis';
import type { RedisKeys } from '../redis/keys';
import type { TaskEvent } from './task-event';

export async function publishTaskEvent(redis: Redis, keys: RedisKeys, taskId: string, event: TaskEvent): Promise<void> {
  await redis.publish(keys.taskChannel(taskId), JSON.stringify(event));
}
