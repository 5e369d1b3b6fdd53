/**
 * Small readers over wire JSON (unknown values), and the per-protocol facts the matrix asserts:
 * how each client protocol names a finish reason, and how each upstream reports raw usage.
 */
import type { UnifiedFinishReason } from '../../../../src/ir/finish-reason';
import type { Protocol } from '../../../../src/ir/protocol';
import type { Usage } from '../../../../src/ir/usage';

export function dig(value: unknown, ...path: Array<string | number>): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function num(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

/** The stop value a client of `protocol` must see for an IR finish (PROTOCOLS.md section 3, IR → client). */
export function clientFinish(protocol: Protocol, unified: UnifiedFinishReason): string {
  const table: Partial<Record<UnifiedFinishReason, Record<Protocol, string>>> = {
    stop: { messages: 'end_turn', chat: 'stop', responses: 'completed', 'generate-content': 'STOP' },
    stop_sequence: { messages: 'stop_sequence', chat: 'stop', responses: 'completed', 'generate-content': 'STOP' },
    length: { messages: 'max_tokens', chat: 'length', responses: 'incomplete:max_output_tokens', 'generate-content': 'MAX_TOKENS' },
    tool_calls: { messages: 'tool_use', chat: 'tool_calls', responses: 'completed', 'generate-content': 'STOP' },
  };
  const row = table[unified];
  if (row === undefined) throw new Error(`no client finish listed for ${unified}`);
  return row[protocol];
}

/**
 * The normalized usage a non-streamed upstream body reports, computed here independently of the
 * codecs with the formulas of PROTOCOLS.md section 3, to catch double counting (pitfall 15).
 */
export function expectedUsageOfBody(protocol: Protocol, body: unknown): Usage {
  switch (protocol) {
    case 'messages': {
      const usage = dig(body, 'usage');
      return {
        inputTokens: num(dig(usage, 'input_tokens')),
        cacheReadTokens: num(dig(usage, 'cache_read_input_tokens')),
        cacheWriteTokens: num(dig(usage, 'cache_creation_input_tokens')),
        outputTokens: num(dig(usage, 'output_tokens')),
        reasoningTokens: num(dig(usage, 'output_tokens_details', 'thinking_tokens')),
      };
    }
    case 'chat': {
      const usage = dig(body, 'usage');
      const cached = num(dig(usage, 'prompt_tokens_details', 'cached_tokens'));
      return {
        inputTokens: Math.max(num(dig(usage, 'prompt_tokens')) - cached, 0),
        cacheReadTokens: cached,
        cacheWriteTokens: 0,
        outputTokens: num(dig(usage, 'completion_tokens')),
        reasoningTokens: num(dig(usage, 'completion_tokens_details', 'reasoning_tokens')),
      };
    }
    case 'responses': {
      const usage = dig(body, 'usage');
      const cached = num(dig(usage, 'input_tokens_details', 'cached_tokens'));
      return {
        inputTokens: Math.max(num(dig(usage, 'input_tokens')) - cached, 0),
        cacheReadTokens: cached,
        cacheWriteTokens: 0,
        outputTokens: num(dig(usage, 'output_tokens')),
        reasoningTokens: num(dig(usage, 'output_tokens_details', 'reasoning_tokens')),
      };
    }
    case 'generate-content': {
      const usage = dig(body, 'usageMetadata');
      const cached = num(dig(usage, 'cachedContentTokenCount'));
      const thoughts = num(dig(usage, 'thoughtsTokenCount'));
      return {
        inputTokens: Math.max(num(dig(usage, 'promptTokenCount')) - cached, 0),
        cacheReadTokens: cached,
        cacheWriteTokens: 0,
        outputTokens: num(dig(usage, 'candidatesTokenCount')) + thoughts,
        reasoningTokens: thoughts,
      };
    }
  }
}

/** The system text an upstream body carries, wherever its protocol puts it. */
export function upstreamSystemText(protocol: Protocol, body: Record<string, unknown>): string {
  switch (protocol) {
    case 'messages': {
      const system = body.system;
      return typeof system === 'string'
        ? system
        : asArray(system)
            .map((block) => String(dig(block, 'text') ?? ''))
            .join('\n');
    }
    case 'chat':
      return asArray(body.messages)
        .filter((message) => dig(message, 'role') === 'system' || dig(message, 'role') === 'developer')
        .map((message) => textOf(dig(message, 'content')))
        .join('\n');
    case 'responses': {
      const instructions = typeof body.instructions === 'string' ? [body.instructions] : [];
      const items = asArray(body.input)
        .filter((item) => dig(item, 'role') === 'system' || dig(item, 'role') === 'developer')
        .map((item) => textOf(dig(item, 'content')));
      return [...instructions, ...items].join('\n');
    }
    case 'generate-content':
      return asArray(dig(body, 'systemInstruction', 'parts'))
        .map((part) => String(dig(part, 'text') ?? ''))
        .join('\n');
  }
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((part) => String(dig(part, 'text') ?? ''))
    .join('');
}

/** The conversation entries of an upstream body, without system entries: messages, items or contents. */
export function upstreamTurns(protocol: Protocol, body: Record<string, unknown>): unknown[] {
  switch (protocol) {
    case 'messages':
      return asArray(body.messages);
    case 'chat':
      return asArray(body.messages).filter((message) => dig(message, 'role') !== 'system' && dig(message, 'role') !== 'developer');
    case 'responses':
      return asArray(body.input).filter((item) => dig(item, 'role') !== 'system' && dig(item, 'role') !== 'developer');
    case 'generate-content':
      return asArray(body.contents);
  }
}
