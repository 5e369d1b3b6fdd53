/**
 * Native pass-through metering: reads usage and finish reason from a Generate-Content answer the
 * gateway forwards untouched (one JSON body, or a stream in SSE or JSON-array framing), and counts a
 * stream's output for billing an abandoned one. Plain JSON reads, no schema validation per chunk.
 */
import type { FinishReason } from '../../ir/finish-reason';
import { ZERO_USAGE, type Usage } from '../../ir/usage';
import type { PassThroughMeter } from '../codec';
import { convertGenerateContentUsage, hasGenerateContentUsage } from './convert-generate-content-usage';
import { GenerateContentChunkReader } from './generate-content-chunk-reader';
import type { GenerateContentUsageMetadata } from './generate-content-response-schema';
import { UsageTally } from '../../ir/usage-tally';
import { mapGenerateContentFinishReason } from './map-generate-content-finish-reason';
import { isRecord } from '../shared/read-json';

export function createGenerateContentPassThroughMeter(stream: boolean): PassThroughMeter {
  return stream ? new StreamMeter() : new BodyMeter();
}

/** What one answer chunk (or a whole body) says, read by hand (no schema); the last usage and the finish reason win. */
class MeterState {
  readonly tally = new UsageTally();
  finishRaw: string | undefined;
  blockReason: string | undefined;
  sawToolCall = false;
  error = false;

  observe(value: unknown): void {
    if (!isRecord(value) || 'error' in value) {
      this.error = true;
      return;
    }
    const metadata = isRecord(value.usageMetadata) ? (value.usageMetadata as GenerateContentUsageMetadata) : undefined;
    if (hasGenerateContentUsage(metadata)) this.tally.report(convertGenerateContentUsage(metadata), true);
    const candidate = Array.isArray(value.candidates) ? value.candidates[0] : undefined;
    if (isRecord(candidate)) this.observeCandidate(candidate);
    else if (isRecord(value.promptFeedback) && typeof value.promptFeedback.blockReason === 'string')
      this.blockReason = value.promptFeedback.blockReason;
  }

  private observeCandidate(candidate: Record<string, unknown>): void {
    const parts = isRecord(candidate.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : [];
    for (const part of parts) {
      if (!isRecord(part)) continue;
      if (typeof part.text === 'string') this.tally.count(part.text);
      if (isRecord(part.functionCall) && typeof part.functionCall.name === 'string' && part.functionCall.name !== '') {
        this.sawToolCall = true;
        this.tally.count(JSON.stringify(part.functionCall.args ?? {}));
      }
    }
    if (typeof candidate.finishReason === 'string' && candidate.finishReason !== '') this.finishRaw = candidate.finishReason;
  }

  result(): { usage: Usage; finish: FinishReason | null; error: boolean } {
    let finish: FinishReason | null = null;
    if (this.finishRaw) finish = mapGenerateContentFinishReason(this.finishRaw, this.sawToolCall);
    else if (this.blockReason) finish = { unified: 'content_filter', raw: this.blockReason };
    return { usage: this.tally.final(), finish, error: this.error };
  }
}

class BodyMeter implements PassThroughMeter {
  private readonly chunks: string[] = [];

  push(chunk: string): void {
    this.chunks.push(chunk);
  }

  failed(): boolean {
    return false;
  }

  untilAbort(): Usage {
    return ZERO_USAGE;
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

  failed(): boolean {
    return this.state.error;
  }

  untilAbort(inputEstimate: number): Usage {
    return this.state.tally.untilAbort(inputEstimate);
  }

  end(): { usage: Usage; finish: FinishReason | null; error: boolean } {
    for (const read of this.reader.end()) {
      if (read.ok) this.state.observe(read.value);
      else this.state.error = true;
    }
    return this.state.result();
  }
}
