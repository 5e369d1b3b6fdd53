/**
 * A Chat body forwarded to a native Chat upstream carries only what that upstream defines. An
 * assistant turn replayed as the gateway answered it holds the gateway's own `reasoning_signature`
 * (never defined upstream) and `reasoning_content`, which only the vendors that emit it take back
 * (DeepSeek and Moonshot require it on thinking tool-call turns); OpenAI refuses unknown message fields.
 */
import { chatMaxTokensField } from './chat-max-tokens-field';

const REASONING_CONTENT_FAMILIES = new Set(['deepseek', 'moonshot']);

function cleanMessage(message: unknown, keepReasoning: boolean): unknown {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return message;
  const record = message as Record<string, unknown>;
  if (record.role !== 'assistant' || (!('reasoning_signature' in record) && (keepReasoning || !('reasoning_content' in record))))
    return message;
  const { reasoning_signature: _signature, reasoning_content: reasoning, ...rest } = record;
  return keepReasoning && reasoning !== undefined ? { ...rest, reasoning_content: reasoning } : rest;
}

/** `body.messages` without the fields the target's family does not define (a new array; the client's body is kept). */
export function stripChatExtensions(body: Record<string, unknown>, family: string): void {
  if (!Array.isArray(body.messages)) return;
  const keepReasoning = REASONING_CONTENT_FAMILIES.has(family);
  body.messages = body.messages.map((message: unknown) => cleanMessage(message, keepReasoning));
}

/**
 * The interface offers Chat `max_tokens` on every model; OpenAI's reasoning models refuse it
 * ("Use 'max_completion_tokens' instead"), so a pass-through body carries it under the field the
 * target takes (besides the model name and the usage request, the only change to a pass-through body).
 */
export function renameChatMaxTokens(body: Record<string, unknown>, upstreamModel: string): void {
  if (body.max_tokens === undefined || body.max_tokens === null || body.max_completion_tokens !== undefined) return;
  if (chatMaxTokensField(upstreamModel) !== 'max_completion_tokens') return;
  body.max_completion_tokens = body.max_tokens;
  delete body.max_tokens;
}
