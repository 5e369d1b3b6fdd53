/**
 * Lua scripts from `src/redis/scripts/<name>-<numberOfKeys>.lua` (`-n`: as many keys as given), with BullMQ-style
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
  /** Undefined for a `-n` script, which takes any number of keys. */
  readonly numberOfKeys: number | undefined;
  readonly source: string;
  readonly sha: string;
}

export function loadRedisScript(name: string): RedisScript {
  const match = /-(\d+|n)$/.exec(name);
  if (!match) throw new Error(`script name ${name} must end with -<numberOfKeys> or -n`);
  const source = inlineIncludes(readFileSync(path.join(SCRIPTS_DIR, `${name}.lua`), 'utf8'), new Set());
  return {
    name,
    numberOfKeys: match[1] === 'n' ? undefined : Number(match[1]),
    source,
    sha: createHash('sha1').update(source).digest('hex'),
  };
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
  if (script.numberOfKeys !== undefined && keys.length !== script.numberOfKeys)
    throw new Error(`${script.name} takes ${script.numberOfKeys} keys, got ${keys.length}`);
  try {
    return await redis.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(script.source, keys.length, ...keys, ...args);
  }
}
