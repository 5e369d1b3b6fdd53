/**
 * The gateway's own store for values a client must send back inside an id too short to hold them
 * (a Gemini thought signature inside a 64-character OpenAI call id): the client sees a short
 * content-addressed id (`gwr_` + 32 characters of its SHA-256), the value lives in this process's
 * memory (bounded) and in Redis (shared by every API process, kept for OPAQUE_ID_TTL_SECONDS).
 * Codecs read it synchronously; the pipeline loads the ids a request names (`preload`) before
 * decoding it. An id no longer kept decodes as a plain id: Generate-Content then sends Google's
 * documented placeholder signature, so the request stays valid.
 */
import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import type { OpaqueIdStore } from '../protocols/codec';
import type { RedisKeys } from '../redis/keys';

const PREFIX = 'gwr_';
const ID = /^gwr_[A-Za-z0-9_-]{32}$/;
const MAX_IN_MEMORY = 50_000;
/** A week: longer than any agent session replays its tool calls. */
const TTL_SECONDS = 7 * 24 * 3600;

export interface PreloadingOpaqueIdStore extends OpaqueIdStore {
  /** Loads from Redis the values of the store's ids found in a request body (arrays and objects, any depth). */
  preload(body: unknown): Promise<void>;
}

export function createOpaqueIdStore(deps: {
  redis: Redis;
  redisKeys: RedisKeys;
  onError: (error: unknown) => void;
}): PreloadingOpaqueIdStore {
  const memory = new Map<string, string>();
  const remember = (id: string, value: string): void => {
    memory.delete(id);
    memory.set(id, value);
    if (memory.size > MAX_IN_MEMORY) memory.delete(memory.keys().next().value!);
  };
  return {
    keep(value) {
      const id = PREFIX + createHash('sha256').update(value).digest('base64url').slice(0, 32);
      if (!memory.has(id)) deps.redis.set(deps.redisKeys.opaqueId(id), value, 'EX', TTL_SECONDS).catch(deps.onError);
      remember(id, value);
      return id;
    },
    find: (id) => (id.startsWith(PREFIX) ? memory.get(id) : undefined),
    async preload(body) {
      const missing = [...idsIn(body)].filter((id) => !memory.has(id));
      if (missing.length === 0) return;
      const values = await deps.redis.mget(missing.map((id) => deps.redisKeys.opaqueId(id))).catch((error: unknown) => {
        deps.onError(error);
        return [] as Array<string | null>;
      });
      missing.forEach((id, index) => {
        if (typeof values[index] === 'string') remember(id, values[index]);
      });
    },
  };
}

function idsIn(value: unknown, found = new Set<string>(), depth = 0): Set<string> {
  if (typeof value === 'string') {
    if (value.startsWith(PREFIX) && ID.test(value)) found.add(value);
  } else if (Array.isArray(value)) {
    if (depth < 8) for (const item of value) idsIn(item, found, depth + 1);
  } else if (value !== null && typeof value === 'object' && depth < 8) {
    for (const item of Object.values(value)) idsIn(item, found, depth + 1);
  }
  return found;
}
