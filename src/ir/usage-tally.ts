/**
 * Billing's running count of one streamed answer: the usage the upstream reported so far (the last
 * report wins), and the output actually streamed, counted at 4 bytes a token, for a stream abandoned
 * before the upstream reported its output. Fed by the translating path (IR events) and by the
 * pass-through meters (raw frames) alike, so both bill an abandoned stream the same way.
 */
import type { Usage } from './usage';

export class UsageTally {
  private reported: Partial<Usage> = {};
  private reportedOutput = false;
  private streamedBytes = 0;

  /** Usage the upstream reported; `withOutput`: its output figure is the real one (not a start-of-stream placeholder). */
  report(usage: Partial<Usage>, withOutput: boolean): void {
    this.reported = { ...this.reported, ...usage };
    if (withOutput) this.reportedOutput = true;
  }

  /** Output text (answer, reasoning, refusal) or tool arguments that reached the client. */
  count(text: string): void {
    this.streamedBytes += Buffer.byteLength(text);
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

  /** Usage produced until an abort: reported figures where they exist, counted output otherwise, the estimate for input. */
  untilAbort(inputEstimate: number): Usage {
    const usage = this.final();
    const counted = Math.ceil(this.streamedBytes / 4);
    const hasInput = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens > 0;
    return {
      ...usage,
      inputTokens: hasInput ? usage.inputTokens : inputEstimate,
      outputTokens: this.reportedOutput ? Math.max(usage.outputTokens, counted) : counted,
    };
  }
}
