/**
 * Fans the task channels of one Redis subscriber connection out to the streams of this process:
 * one SUBSCRIBE per task however many streams follow it, UNSUBSCRIBE when the last one leaves.
 * The subscriber connection is shared (key invalidation uses it too), so only our channels are read.
 */
import type Redis from 'ioredis';
import type { RedisKeys } from '../redis/keys';
import { parseTaskEvent, type TaskEvent } from './task-event';

export type TaskEventListener = (event: TaskEvent) => void;

export interface TaskEventHub {
  /** Resolves once the subscription is active, so nothing published afterwards is missed. */
  listen(taskId: string, listener: TaskEventListener): Promise<() => void>;
  close(): void;
}

export function createTaskEventHub(subscriber: Redis, keys: RedisKeys): TaskEventHub {
  const listeners = new Map<string, Set<TaskEventListener>>();
  // A channel's SUBSCRIBE in flight: later listeners wait on it instead of subscribing again.
  const pending = new Map<string, Promise<unknown>>();

  const onMessage = (channel: string, message: string) => {
    const set = listeners.get(channel);
    if (!set) return;
    const event = parseTaskEvent(message);
    if (!event) return;
    for (const listener of [...set]) listener(event);
  };
  subscriber.on('message', onMessage);

  return {
    async listen(taskId, listener) {
      const channel = keys.taskChannel(taskId);
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
        pending.set(
          channel,
          subscriber.subscribe(channel).finally(() => pending.delete(channel)),
        );
      }
      set.add(listener);
      try {
        await pending.get(channel);
      } catch (error) {
        set.delete(listener);
        if (set.size === 0) listeners.delete(channel);
        throw error;
      }
      let removed = false;
      return () => {
        if (removed) return;
        removed = true;
        const current = listeners.get(channel);
        if (!current) return;
        current.delete(listener);
        if (current.size === 0) {
          listeners.delete(channel);
          void subscriber.unsubscribe(channel).catch(() => undefined);
        }
      };
    },
    close() {
      subscriber.off('message', onMessage);
      for (const channel of listeners.keys()) void subscriber.unsubscribe(channel).catch(() => undefined);
      listeners.clear();
    },
  };
}
