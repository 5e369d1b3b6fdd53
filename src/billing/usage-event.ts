/** A billed request, produced by the API process, settled durably by billing workers. */
export interface UsageEvent {
  /** Idempotency key: the request id. */
  requestId: string;
  accountId: number;
  apiKeyId: number | null;
  model: string;
  protocol: string;
  upstreamAccountId: number | null;
  promptTokens: number;
  completionTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  images: number;
  videoSeconds: number;
  credits: number;
  stream: boolean;
  status: 'ok' | 'aborted';
  /** Unix ms. */
  startedAt: number;
}

export interface UsageRecorder {
  /** Enqueues the event (BullMQ job id = request id). Never throws into the request path. */
  record(event: UsageEvent): Promise<void>;
}
