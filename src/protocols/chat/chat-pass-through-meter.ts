/**
 * Chat client, Chat upstream: the bytes pass untouched and this reads usage and finish reason from
 * them for billing, and counts a stream's output for billing an abandoned one. `error` is true for an
 * error body or frame, and for a stream cut before `[DONE]`.
 */
import type { FinishReason } from '../../ir/finish-reason';
import { ZERO_USAGE, type Usage } from '../../ir/usage';
import type { PassThroughMeter } from '../codec';
import { SseParser } from '../shared/sse-parser';
import type { ChatUpstreamContentPart, ChatUpstreamUsage } from './chat-upstream-schema';
import { readChatArguments, readChatContent } from './read-chat-content';
import { UsageTally } from '../../ir/usage-tally';
import { convertChatUsage } from './convert-chat-usage';
import { mapChatFinishReason } from './map-chat-finish-reason';
import { isRecord, parseJson } from '../shared/read-json';

function hasError(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || !('error' in value)) return false;
  return value.error !== null && value.error !== undefined;
}

/** The stream: each frame is JSON-parsed and read by hand (no schema validation: the bytes go out as they are). */
class StreamMeter implements PassThroughMeter {
  private readonly parser = new SseParser();
  private readonly tally = new UsageTally();
  private finishRaw: string | undefined;
  private sawToolCall = false;
  private done = false;
  private error = false;

  push(chunk: string): void {
    for (const event of this.parser.push(chunk)) this.read(event.data);
  }

  failed(): boolean {
    return this.error;
  }

  untilAbort(inputEstimate: number): Usage {
    return this.tally.untilAbort(inputEstimate);
  }

  end(): { usage: Usage; finish: FinishReason | null; error: boolean } {
    for (const event of this.parser.end()) this.read(event.data);
    return {
      usage: this.tally.final(),
      finish: this.finishRaw === undefined ? null : mapChatFinishReason(this.finishRaw, this.sawToolCall),
      error: this.error || !this.done,
    };
  }

  private read(data: string): void {
    if (this.done || this.error) return;
    if (data.trim() === '[DONE]') {
      this.done = true;
      return;
    }
    const chunk = parseJson(data);
    if (!isRecord(chunk)) return;
    if (hasError(chunk)) {
      this.error = true;
      return;
    }
    const choice = Array.isArray(chunk.choices)
      ? chunk.choices.find((candidate: unknown) => isRecord(candidate) && (candidate.index ?? 0) === 0)
      : undefined;
    if (isRecord(choice)) this.readChoice(choice);
    const usage = isRecord(chunk.usage)
      ? chunk.usage
      : isRecord(chunk.x_groq) && isRecord(chunk.x_groq.usage)
        ? chunk.x_groq.usage
        : undefined;
    if (usage) this.tally.report(convertChatUsage(usage as ChatUpstreamUsage), true);
  }

  private readChoice(choice: Record<string, unknown>): void {
    const delta = isRecord(choice.delta) ? choice.delta : undefined;
    if (delta) {
      const content = Array.isArray(delta.content) ? readChatContent(delta.content as ChatUpstreamContentPart[]) : undefined;
      for (const text of [delta.content, delta.reasoning_content, delta.reasoning, delta.refusal, content?.text, content?.reasoning]) {
        if (typeof text === 'string') this.tally.count(text);
      }
      if (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) {
        this.sawToolCall = true;
        for (const call of delta.tool_calls) {
          const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
          this.tally.count(readChatArguments(fn?.arguments as string | Record<string, unknown> | undefined));
        }
      }
    }
    if (typeof choice.finish_reason === 'string') this.finishRaw = choice.finish_reason;
  }
}

/** One JSON body: read without schema validation (the body goes out untouched; only billing reads it). */
class BodyMeter implements PassThroughMeter {
  private text = '';

  push(chunk: string): void {
    this.text += chunk;
  }

  failed(): boolean {
    return false;
  }

  untilAbort(): Usage {
    return ZERO_USAGE;
  }

  end(): { usage: Usage; finish: FinishReason | null; error: boolean } {
    const json = parseJson(this.text);
    if (!isRecord(json) || hasError(json) || !Array.isArray(json.choices)) return { usage: ZERO_USAGE, finish: null, error: true };
    const choice: unknown = json.choices.find((candidate: unknown) => isRecord(candidate) && (candidate.index ?? 0) === 0);
    const finishRaw = isRecord(choice) && typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined;
    const message = isRecord(choice) && isRecord(choice.message) ? choice.message : undefined;
    const toolCalls = Array.isArray(message?.tool_calls) ? message.tool_calls.length : 0;
    return {
      usage: convertChatUsage(isRecord(json.usage) ? (json.usage as ChatUpstreamUsage) : undefined),
      finish: finishRaw === undefined ? null : mapChatFinishReason(finishRaw, toolCalls > 0),
      error: false,
    };
  }
}

export function createChatPassThroughMeter(stream: boolean): PassThroughMeter {
  return stream ? new StreamMeter() : new BodyMeter();
}
