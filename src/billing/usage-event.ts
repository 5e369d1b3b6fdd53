import type { SettledUsage } from '../db/repositories/ledger';
import type { SettlementRecord } from '../limits/admission';

/** A billed request, produced by the API process, settled durably by billing workers (the ledger's `SettledUsage`, with its two statuses). */
export interface UsageEvent extends SettledUsage {
  status: 'ok' | 'aborted';
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
