/**
 * Which conversation a request belongs to, for prompt-cache affinity: what the clients already send
 * where they send it (each protocol's codec names the places, `InboundCodec.sessionSources`: a
 * session header such as Claude Code's `x-claude-code-session-id` or Codex's `session_id`, then body
 * fields such as Messages `metadata.user_id` or Chat `prompt_cache_key`), else a hash of the stable prefix every turn of a conversation repeats: system,
 * tools and first turn. A Responses chain by `previous_response_id` has been resolved into its turns
 * by then, so its prefix is the chain's first turn: the whole chain is one session.
 * Scoped by API key: two keys never share a session, whatever they send.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../http/canonical-json';
import type { IrRequest } from '../ir/request';

export interface SessionIdentity {
  /** Hex digest: the Redis key part and the `prompt_cache_key` sent upstream. */
  id: string;
  /** Where it came from (logs): the client field, or `prefix`. */
  source: string;
}

/** Where a protocol's clients name their conversation: headers, read first, then body fields (paths). */
export interface SessionSources {
  readonly headers: readonly string[];
  readonly fields: ReadonlyArray<readonly string[]>;
}

type HeaderBag = Record<string, string | string[] | undefined>;

function readHeader(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return typeof text === 'string' && text.trim() !== '' ? text.trim() : undefined;
}

function readPath(body: Record<string, unknown>, path: readonly string[]): string | undefined {
  let value: unknown = body;
  for (const step of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function digest(...parts: string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\u0000');
  return hash.digest('hex').slice(0, 32);
}

export function sessionIdentity(
  sources: SessionSources,
  rawBody: Record<string, unknown>,
  request: IrRequest,
  keyId: number,
  headers: HeaderBag = {},
): SessionIdentity {
  for (const name of sources.headers) {
    const value = readHeader(headers, name);
    if (value !== undefined) return { id: digest(String(keyId), `header:${name}`, value), source: `header ${name}` };
  }
  for (const path of sources.fields) {
    const value = readPath(rawBody, path);
    if (value !== undefined) return { id: digest(String(keyId), path.join('.'), value), source: path.join('.') };
  }
  // Cache markers move from turn to turn (clients mark the newest messages): not part of the identity.
  const prefix = canonicalJson(
    { system: request.system, tools: request.tools, builtinTools: request.builtinTools, first: request.turns[0] ?? null },
    ['cacheHint'],
  );
  return { id: digest(String(keyId), 'prefix', request.model, prefix), source: 'prefix' };
}
