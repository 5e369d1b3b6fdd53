/**
 * OpenAI rejects tool call ids longer than 40 characters ("string too long"); ids from other
 * protocols can be longer or carry other characters. Rewritten deterministically, the same way on
 * the assistant's `tool_calls[].id` and the tool message's `tool_call_id`, so the pair still matches.
 */
import { createHash } from 'node:crypto';

const SAFE_ID = /^[A-Za-z0-9_-]{1,40}$/;

export function sanitizeChatToolCallId(id: string): string {
  if (SAFE_ID.test(id)) return id;
  return `call_${createHash('sha256').update(id).digest('base64url').slice(0, 35)}`;
}
