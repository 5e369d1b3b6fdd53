/**
 * Chat client, Chat upstream: the bytes pass untouched and this reads usage and finish reason from
 * them for billing. `error` is true for an error body or frame, and for a stream cut before `[DONE]`.
 */
import type { FinishReason } from '../../ir/finish-reason';
import { ZERO_USAGE, type Usage } from '../../ir/usage';
import type { PassThroughMeter } from '../codec';
import { SseParser } from '../shared/sse-parser';
import { chatChunkSchema, type ChatUpstreamUsage } from './chat-upstream-schema';
import { convertChatUsage } from './convert-chat-usage';
import { mapChatFinishReason } from './map-chat-finish-reason';

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function hasError(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || !('error' in value)) return false;
  return value.error !== null && value.error !== undefined;
}

class StreamMeter implements PassThroughMeter {
  private readonly parser = new SseParser();
  private usage: Usage = ZERO_USAGE;
  private finishRaw: string | undefined;
  private sawToolCall = false;
  private done = false;
  private error = false;

  push(chunk: string): void {
    for (const event of this.parser.push(chunk)) this.read(event.data);
  }

  end(): { usage: Usage; finish: FinishReason | null; error: boolean } {
    for (const event of this.parser.end()) this.read(event.data);
    return {
      usage: this.usage,
      finish: this.finishRaw === undefined ? null : mapChatFinishReason(this.finishRaw, this.sawToolCall),
      error: this.error || !this.done,
    };
  }

  private read(data: string): void {
    if (this.done) return;
    if (data.trim() === '[DONE]') {
      this.done = true;
      return;
    }
    const json = parseJson(data);
    if (hasError(json)) {
      this.error = true;
      return;
    }
    const parsed = chatChunkSchema.safeParse(json);
    if (!parsed.success) return;
    const chunk = parsed.data;
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      if ((choice.delta?.tool_calls?.length ?? 0) > 0) this.sawToolCall = true;
      if (choice.finish_reason) this.finishRaw = choice.finish_reason;
    }
    const usage = chunk.usage ?? chunk.x_groq?.usage;
    if (usage) this.usage = convertChatUsage(usage);
  }
}

/** One JSON body: read without schema validation (the body goes out untouched; only billing reads it). */
class BodyMeter implements PassThroughMeter {
  private text = '';

  push(chunk: string): void {
    this.text += chunk;
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function createChatPassThroughMeter(stream: boolean): PassThroughMeter {
  return stream ? new StreamMeter() : new BodyMeter();
}
