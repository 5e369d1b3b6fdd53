/**
 * What a recorded answer says, reduced to the facts every protocol can carry (visible text,
 * reasoning text, refusal, tool calls with parsed arguments, finish, input and output totals), so
 * the same capture can be compared across its decodings, its twin and the four official SDKs.
 * Also the capture's own usage totals, read from the raw recorded usage (not through our decoders).
 */
import type { GatewayError } from '../../src/errors/gateway-error';
import type { UnifiedFinishReason } from '../../src/ir/finish-reason';
import type { ContentPart } from '../../src/ir/parts';
import type { Protocol } from '../../src/ir/protocol';
import type { IrResponse } from '../../src/ir/response';
import type { IrStreamEvent } from '../../src/ir/stream-event';
import { totalInputTokens, ZERO_USAGE, type Usage } from '../../src/ir/usage';
import { argumentsToObject } from '../../src/protocols/shared/tool-arguments';
import { collectIrStream } from './sdk-responses';

export interface ToolCallFact {
  name: string;
  arguments: Record<string, unknown>;
}

/** Input total (cached and cache writes included) and output total (reasoning included). */
export interface Totals {
  input: number;
  output: number;
}

export interface AnswerFacts {
  /** Text parts joined. */
  text: string;
  /** Text and refusal parts joined in order: what a protocol without a refusal field shows. */
  visible: string;
  /** Refusal parts joined. */
  refusal: string;
  reasoning: string;
  toolCalls: ToolCallFact[];
  finish: UnifiedFinishReason | undefined;
  totals: Totals;
  /** Kinds of parts in order, consecutive repeats collapsed (`native:<type>` for native blocks). */
  kinds: string[];
  /** Per reasoning part, which opaque values it carries and from which protocol (`signature:messages`). */
  opaque: string[][];
}

function kindOf(part: ContentPart): string {
  return part.type === 'native' ? `native:${String(part.value.type)}` : part.type;
}

export function partKinds(parts: readonly ContentPart[]): string[] {
  const kinds: string[] = [];
  for (const part of parts) if (kinds.at(-1) !== kindOf(part)) kinds.push(kindOf(part));
  return kinds;
}

export function usageTotals(usage: Usage): Totals {
  return { input: totalInputTokens(usage), output: usage.outputTokens };
}

export function answerFacts(parts: readonly ContentPart[], finish: UnifiedFinishReason | undefined, usage: Usage): AnswerFacts {
  const join = (type: 'text' | 'refusal' | 'reasoning'): string => parts.map((part) => (part.type === type ? part.text : '')).join('');
  return {
    text: join('text'),
    visible: parts.map((part) => (part.type === 'text' || part.type === 'refusal' ? part.text : '')).join(''),
    refusal: join('refusal'),
    reasoning: join('reasoning'),
    toolCalls: parts.flatMap((part) =>
      part.type === 'tool_call' ? [{ name: part.name, arguments: argumentsToObject(part.argumentsJson) }] : [],
    ),
    finish,
    totals: usageTotals(usage),
    kinds: partKinds(parts),
    opaque: parts.flatMap((part) =>
      part.type === 'reasoning'
        ? [(['signature', 'redacted', 'encrypted'] as const).flatMap((field) => (part[field] ? [`${field}:${part[field].origin}`] : []))]
        : [],
    ),
  };
}

export function responseFacts(response: IrResponse): AnswerFacts {
  return answerFacts(response.parts, response.finish.unified, response.usage);
}

/** A decoded stream folded into the complete answer it describes (the IR stream contract is checked on the way). */
export interface FoldedStream {
  response: IrResponse;
  /** Whether the stream carried a finish event (a stream without one ended in error). */
  finished: boolean;
  error?: GatewayError;
}

export function foldStream(events: IrStreamEvent[]): FoldedStream {
  const collected = collectIrStream(events);
  return {
    response: {
      id: collected.id ?? '',
      model: collected.model ?? '',
      parts: collected.parts,
      finish: collected.finish ?? { unified: 'error', raw: null },
      usage: collected.usage ?? { ...ZERO_USAGE },
    },
    finished: collected.finish !== undefined,
    ...(collected.error ? { error: collected.error } : {}),
  };
}

/**
 * A complete answer as the stream events a decoder would have produced for it: how a recorded
 * non-streamed body is replayed to streaming clients.
 */
export function responseToEvents(response: IrResponse): IrStreamEvent[] {
  const events: IrStreamEvent[] = [{ type: 'start', id: response.id, model: response.model }];
  let index = 0;
  for (const part of response.parts) {
    switch (part.type) {
      case 'text':
        events.push({ type: 'block_start', index, block: { kind: 'text' } }, { type: 'text_delta', index, text: part.text });
        break;
      case 'refusal':
        events.push({ type: 'block_start', index, block: { kind: 'refusal' } }, { type: 'refusal_delta', index, text: part.text });
        break;
      case 'reasoning':
        events.push({ type: 'block_start', index, block: { kind: 'reasoning', ...(part.itemId ? { itemId: part.itemId } : {}) } });
        if (part.text !== '') events.push({ type: 'reasoning_delta', index, text: part.text });
        for (const field of ['signature', 'redacted', 'encrypted'] as const) {
          const value = part[field];
          if (value !== undefined) events.push({ type: 'reasoning_opaque', index, field, value });
        }
        break;
      case 'tool_call':
        events.push(
          {
            type: 'block_start',
            index,
            block: { kind: 'tool_call', id: part.id, name: part.name, ...(part.signature ? { signature: part.signature } : {}) },
          },
          { type: 'tool_args_delta', index, json: part.argumentsJson },
        );
        break;
      case 'native':
        events.push({ type: 'block_start', index, block: { kind: 'native', part } });
        break;
      case 'image':
      case 'document':
      case 'tool_result':
        throw new Error(`an answer part of type ${part.type} has no stream form`);
    }
    events.push({ type: 'block_end', index });
    index++;
  }
  events.push({ type: 'usage', usage: response.usage }, { type: 'finish', finish: response.finish });
  return events;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function number(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

/**
 * The totals the provider itself reported, read straight from the recorded usage, per protocol:
 * - Messages: `input_tokens + cache_read_input_tokens + cache_creation_input_tokens` and
 *   `output_tokens`; in a stream `message_delta.usage` overrides `message_start`'s field by field.
 * - Responses: `input_tokens` and `output_tokens` of the final `response` (they include cached and
 *   reasoning tokens).
 * - Chat: `prompt_tokens` and `completion_tokens` of the last chunk that has `usage`; xAI leaves
 *   reasoning out of `completion_tokens` (its `total_tokens` = prompt + completion + reasoning),
 *   so there the reasoning tokens are added.
 * - Generate-Content: `promptTokenCount` (+ `toolUsePromptTokenCount`) and `candidatesTokenCount +
 *   thoughtsTokenCount` of the last `usageMetadata`.
 */
export function rawTotals(protocol: Protocol, payloads: readonly unknown[]): Totals {
  switch (protocol) {
    case 'messages': {
      let usage: Record<string, unknown> = {};
      for (const payload of payloads) {
        const item = record(payload);
        const found = record(record(item?.message)?.usage) ?? record(item?.usage);
        if (found) for (const [key, value] of Object.entries(found)) if (value !== null && value !== undefined) usage[key] = value;
      }
      return {
        input: number(usage.input_tokens) + number(usage.cache_read_input_tokens) + number(usage.cache_creation_input_tokens),
        output: number(usage.output_tokens),
      };
    }
    case 'responses': {
      let usage: Record<string, unknown> | undefined;
      for (const payload of payloads) {
        const item = record(payload);
        usage = record(record(item?.response)?.usage) ?? record(item?.usage) ?? usage;
      }
      return { input: number(usage?.input_tokens), output: number(usage?.output_tokens) };
    }
    case 'chat': {
      let usage: Record<string, unknown> | undefined;
      for (const payload of payloads) usage = record(record(payload)?.usage) ?? usage;
      const prompt = number(usage?.prompt_tokens);
      const completion = number(usage?.completion_tokens);
      const reasoning = number(record(usage?.completion_tokens_details)?.reasoning_tokens);
      const reasoningApart = reasoning > 0 && number(usage?.total_tokens) === prompt + completion + reasoning;
      return { input: prompt, output: completion + (reasoningApart ? reasoning : 0) };
    }
    case 'generate-content': {
      let usage: Record<string, unknown> | undefined;
      for (const payload of payloads) {
        const found = record(record(payload)?.usageMetadata);
        if (found && found.totalTokenCount !== undefined) usage = found;
      }
      return {
        input: number(usage?.promptTokenCount) + number(usage?.toolUsePromptTokenCount),
        output: number(usage?.candidatesTokenCount) + number(usage?.thoughtsTokenCount),
      };
    }
  }
}
