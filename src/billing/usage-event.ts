import type { SettlementRecord } from '../limits/admission';

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

/** A usage event handed to the settlement script; told whether the script appended it. */
export interface HeldUsageEvent extends SettlementRecord {
  /** The script did not run (Redis away): the recorder appends the event itself later. */
  notAppended(): void;
}

export interface UsageRecorder {
  /** Appends the event to the usage stream. Never throws into the request path. */
  record(event: UsageEvent): Promise<void>;
  /**
   * Keeps the event until a worker confirms it and returns it for the settlement script to append
   * atomically with the counters (one Redis round trip); undefined when the recorder cannot hold it.
   */
  hold?(event: UsageEvent): HeldUsageEvent | undefined;
}
