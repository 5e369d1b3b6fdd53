/**
 * Prompt caching as the providers report it. Two rules:
 * - explicit breakpoints (Messages `cache_control`): the prefix up to each marked block is cached;
 *   the longest prefix seen before is a cache read, the rest up to the last breakpoint a cache write;
 * - automatic prefix caching (Chat, Responses, Generate-Content): the longest run of leading
 *   segments seen before is reported as cached, when it holds at least 1,024 tokens (the providers'
 *   minimum, which also keeps small test prompts free of cache hits).
 * Prefixes are keyed by scope (protocol, model and the caller's credential: providers cache per
 * account) and chained SHA-1 hashes of the segments' serialization.
 */
import { createHash } from 'node:crypto';
import { BoundedMap } from '../bounded-map';
import type { PromptSegment } from './conversation';

export const AUTOMATIC_CACHE_MIN_TOKENS = 1024;

export interface ExplicitCacheUsage {
  read: number;
  write: number;
  /** The TTL of the written prefix (its last breakpoint's), for `cache_creation` details. */
  writeTtl: '5m' | '1h';
}

export class PromptCache {
  private readonly seen: BoundedMap<string, true>;

  constructor(limit: number) {
    this.seen = new BoundedMap(limit);
  }

  explicit(scope: string, segments: readonly PromptSegment[]): ExplicitCacheUsage {
    if (!segments.some((segment) => segment.cacheBreakpoint !== null)) return { read: 0, write: 0, writeTtl: '5m' };
    const breakpoints: { hash: string; tokens: number; ttl: '5m' | '1h' }[] = [];
    let hash = scope;
    let tokens = 0;
    for (const segment of segments) {
      hash = chain(hash, segment.key);
      tokens += segment.tokens;
      if (segment.cacheBreakpoint !== null) breakpoints.push({ hash, tokens, ttl: segment.cacheBreakpoint });
    }
    const last = breakpoints[breakpoints.length - 1];
    if (last === undefined) return { read: 0, write: 0, writeTtl: '5m' };
    let read = 0;
    for (const breakpoint of breakpoints) if (this.seen.has(breakpoint.hash)) read = Math.max(read, breakpoint.tokens);
    for (const breakpoint of breakpoints) this.seen.set(breakpoint.hash, true);
    return { read, write: last.tokens - read, writeTtl: last.ttl };
  }

  automatic(scope: string, segments: readonly PromptSegment[]): number {
    let total = 0;
    for (const segment of segments) total += segment.tokens;
    if (total < AUTOMATIC_CACHE_MIN_TOKENS) return 0;
    let hash = scope;
    let tokens = 0;
    let cached = 0;
    for (const segment of segments) {
      hash = chain(hash, segment.key);
      tokens += segment.tokens;
      if (this.seen.has(hash)) cached = tokens;
      this.seen.set(hash, true);
    }
    return cached >= AUTOMATIC_CACHE_MIN_TOKENS ? cached : 0;
  }
}

function chain(previous: string, key: string): string {
  return createHash('sha1').update(previous).update('\u0000').update(key).digest('base64');
}
