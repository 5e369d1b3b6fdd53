/**
 * Chat client, Chat upstream: the bytes pass untouched and this reads usage and finish reason from
 * them for billing. `error` is true for an error body or frame, and for a stream cut before `[DONE]`.
 */
import type { FinishReason } from '../../ir/finish-reason';
import { ZERO_USAGE, type Usage } from '../../ir/usage';
import type { PassThroughMeter } from '../codec';
import { SseParser } from '../shared/sse-parser';
import { chatChunkSchema, chatCompletionSchema } from './chat-upstream-schema';
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

class BodyMeter implements PassThroughMeter {
  private text = '';

  push(chunk: string): void {
    this.text += chunk;
  }

  end(): { usage: Usage; finish: FinishReason | null; error: boolean } {
    const json = parseJson(this.text);
    const parsed = chatCompletionSchema.safeParse(json);
    if (json === undefined || hasError(json) || !parsed.success) return { usage: ZERO_USAGE, finish: null, error: true };
    const choice = parsed.data.choices?.find((candidate) => (candidate.index ?? 0) === 0);
    return {
      usage: convertChatUsage(parsed.data.usage),
      finish: choice ? mapChatFinishReason(choice.finish_reason, (choice.message?.tool_calls?.length ?? 0) > 0) : null,
      error: false,
    };
  }
}

export function createChatPassThroughMeter(stream: boolean): PassThroughMeter {
  return stream ? new StreamMeter() : new BodyMeter();
}
