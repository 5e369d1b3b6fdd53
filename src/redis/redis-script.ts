/**
 * Lua scripts from `src/redis/scripts/<name>-<numberOfKeys>.lua`, with BullMQ-style
 * `--- @include "includes/<file>"` lines inlined, run by EVALSHA (EVAL once after a NOSCRIPT,
 * e.g. when Redis restarted and forgot the script).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type Redis from 'ioredis';

const SCRIPTS_DIR = path.join(__dirname, 'scripts');
const INCLUDE = /^--- @include "([A-Za-z0-9_/-]+)"\s*$/gm;

export interface RedisScript {
  readonly name: string;
  readonly numberOfKeys: number;
  readonly source: string;
  readonly sha: string;
}

export function loadRedisScript(name: string): RedisScript {
  const match = /-(\d+)$/.exec(name);
  if (!match) throw new Error(`script name ${name} must end with -<numberOfKeys>`);
  const source = inlineIncludes(readFileSync(path.join(SCRIPTS_DIR, `${name}.lua`), 'utf8'), new Set());
  return { name, numberOfKeys: Number(match[1]), source, sha: createHash('sha1').update(source).digest('hex') };
}

/** Each file is inlined once (an include of an include it already has is dropped). */
function inlineIncludes(text: string, seen: Set<string>): string {
  return text.replace(INCLUDE, (_line, include: string) => {
    if (seen.has(include)) return '';
    seen.add(include);
    return inlineIncludes(readFileSync(path.join(SCRIPTS_DIR, `${include}.lua`), 'utf8'), seen);
  });
}

export async function runRedisScript(redis: Redis, script: RedisScript, keys: string[], args: (string | number)[]): Promise<unknown> {
  if (keys.length !== script.numberOfKeys) throw new Error(`${script.name} takes ${script.numberOfKeys} keys, got ${keys.length}`);
  try {
    return await redis.evalsha(script.sha, script.numberOfKeys, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(script.source, script.numberOfKeys, ...keys, ...args);
  }
}
