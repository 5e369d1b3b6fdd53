/**
 * Follows a stream's IR events for billing: the upstream's cumulative usage (last one wins), and
 * the output actually streamed, counted at 4 bytes a token, for a stream abandoned before the
 * upstream reported its usage.
 */
import type { IrStreamEvent } from '../ir/stream-event';
import type { Usage } from '../ir/usage';

export class UsageTracker {
  private reported: Partial<Usage> = {};
  private reportedOutput = false;
  private streamedBytes = 0;

  constructor(private readonly inputEstimate: number) {}

  observe(event: IrStreamEvent): void {
    switch (event.type) {
      case 'start':
        if (event.usage) this.reported = { ...this.reported, ...event.usage };
        break;
      case 'usage':
        this.reported = { ...this.reported, ...event.usage };
        this.reportedOutput = true;
        break;
      case 'text_delta':
      case 'reasoning_delta':
      case 'refusal_delta':
        this.streamedBytes += Buffer.byteLength(event.text);
        break;
      case 'tool_args_delta':
        this.streamedBytes += Buffer.byteLength(event.json);
        break;
      default:
        break;
    }
  }

  /** Usage as the upstream reported it (complete streams). */
  final(): Usage {
    return {
      inputTokens: this.reported.inputTokens ?? 0,
      cacheReadTokens: this.reported.cacheReadTokens ?? 0,
      cacheWriteTokens: this.reported.cacheWriteTokens ?? 0,
      outputTokens: this.reported.outputTokens ?? 0,
      reasoningTokens: this.reported.reasoningTokens ?? 0,
    };
  }

  /** Usage produced until an abort: reported figures where they exist, counted output otherwise. */
  untilAbort(): Usage {
    const usage = this.final();
    const counted = Math.ceil(this.streamedBytes / 4);
    const hasInput = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens > 0;
    return {
      ...usage,
      inputTokens: hasInput ? usage.inputTokens : this.inputEstimate,
      outputTokens: this.reportedOutput ? Math.max(usage.outputTokens, counted) : counted,
    };
  }
}
