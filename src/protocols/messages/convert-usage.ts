/**
 * Messages usage ⇄ the normalized billing record. Messages `input_tokens` already excludes cache
 * reads and writes, and `output_tokens` already includes thinking, so the mapping is one to one.
 */
import type { Usage } from '../../ir/usage';
import { isRecord, readNumber, readRecord, type JsonRecord } from '../shared/read-json';
import type { MessagesUsageBody } from './wire-types';

export function convertMessagesUsage(raw: unknown): Usage {
  if (!isRecord(raw)) return { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 };
  const details = readRecord(raw, 'output_tokens_details');
  return {
    inputTokens: readNumber(raw, 'input_tokens') ?? 0,
    cacheReadTokens: readNumber(raw, 'cache_read_input_tokens') ?? 0,
    cacheWriteTokens: readNumber(raw, 'cache_creation_input_tokens') ?? 0,
    outputTokens: readNumber(raw, 'output_tokens') ?? 0,
    // The Messages API counts thinking inside output_tokens and does not break it out; a
    // `thinking_tokens` detail is read if a provider ever sends one, else 0 (never estimated).
    reasoningTokens: (details && readNumber(details, 'thinking_tokens')) ?? 0,
  };
}

/**
 * Stream usage: `message_delta.usage` holds cumulative totals that override `message_start`'s,
 * but fields it omits keep their earlier value (as the official SDK accumulates them).
 */
export function mergeMessagesUsage(previous: JsonRecord, next: unknown): JsonRecord {
  if (!isRecord(next)) return previous;
  const merged: JsonRecord = { ...previous };
  for (const [key, value] of Object.entries(next)) {
    if (value !== null && value !== undefined) merged[key] = value;
  }
  return merged;
}

export function toMessagesUsage(usage: Usage): MessagesUsageBody {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
  };
}
