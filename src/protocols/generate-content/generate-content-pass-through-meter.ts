/**
 * Native pass-through metering: reads usage and finish reason from a Generate-Content answer the
 * gateway forwards untouched (one JSON body, or a stream in SSE or JSON-array framing).
 */
import type { FinishReason } from '../../ir/finish-reason';
import { ZERO_USAGE, type Usage } from '../../ir/usage';
import type { PassThroughMeter } from '../codec';
import { convertGenerateContentUsage, hasGenerateContentUsage } from './convert-generate-content-usage';
import { GenerateContentChunkReader } from './generate-content-chunk-reader';
import { generateContentResponseSchema } from './generate-content-response-schema';
import { mapGenerateContentFinishReason } from './map-generate-content-finish-reason';

export function createGenerateContentPassThroughMeter(stream: boolean): PassThroughMeter {
  return stream ? new StreamMeter() : new BodyMeter();
}

/** What one answer chunk (or a whole body) says; the last usage and the finish reason win. */
class MeterState {
  usage: Usage = { ...ZERO_USAGE };
  finishRaw: string | null | undefined;
  blockReason: string | undefined;
  sawToolCall = false;
  error = false;

  observe(value: unknown): void {
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && 'error' in value) {
      this.error = true;
      return;
    }
    const parsed = generateContentResponseSchema.safeParse(value);
    if (!parsed.success) {
      this.error = true;
      return;
    }
    const chunk = parsed.data;
    if (hasGenerateContentUsage(chunk.usageMetadata)) this.usage = convertGenerateContentUsage(chunk.usageMetadata);
    const candidate = chunk.candidates?.[0];
    if (candidate?.content?.parts?.some((part) => part.functionCall?.name)) this.sawToolCall = true;
    if (candidate?.finishReason) this.finishRaw = candidate.finishReason;
    if (!candidate && chunk.promptFeedback?.blockReason) this.blockReason = chunk.promptFeedback.blockReason;
  }

  result(): { usage: Usage; finish: FinishReason | null; error: boolean } {
    let finish: FinishReason | null = null;
    if (this.finishRaw) finish = mapGenerateContentFinishReason(this.finishRaw, this.sawToolCall);
    else if (this.blockReason) finish = { unified: 'content_filter', raw: this.blockReason };
    return { usage: this.usage, finish, error: this.error };
  }
}

class BodyMeter implements PassThroughMeter {
  private readonly chunks: string[] = [];

  push(chunk: string): void {
    this.chunks.push(chunk);
  }

  end(): { usage: Usage; finish: FinishReason | null; error: boolean } {
    const state = new MeterState();
    try {
      state.observe(JSON.parse(this.chunks.join('')));
    } catch {
      state.error = true;
    }
    return state.result();
  }
}

class StreamMeter implements PassThroughMeter {
  private readonly reader = new GenerateContentChunkReader();
  private readonly state = new MeterState();

  push(chunk: string): void {
    for (const read of this.reader.push(chunk)) {
      if (read.ok) this.state.observe(read.value);
      else this.state.error = true;
    }
  }

  end(): { usage: Usage; finish: FinishReason | null; error: boolean } {
    for (const read of this.reader.end()) {
      if (read.ok) this.state.observe(read.value);
      else this.state.error = true;
    }
    return this.state.result();
  }
}
