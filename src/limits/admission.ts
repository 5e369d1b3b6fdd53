/**
 * The admission contract between the inference/image/task routes and the limits module.
 * One atomic Redis script per request (DESIGN 4.2): key state, IP, concurrency lease, spend windows,
 * quota, wallet; it reserves an estimated cost that settlement later replaces by the actual cost.
 */
import type { AuthenticatedKey } from '../auth/authenticated-key';
import type { StreamRider } from '../redis/durable-stream-producer';

export interface AdmissionRequest {
  key: AuthenticatedKey;
  clientIp: string;
  requestId: string;
  /** Credits reserved until settlement (estimated input + capped output at the model's prices). */
  reserveCredits: number;
  /** Whether the request takes a concurrency lease (inference, images, task submit). */
  takesLease: boolean;
}

/**
 * A usage record appended to the usage stream by the same atomic script that settles the counters
 * (billing's entry, docs/billing.md). `appended` is told the stream entry id once it is in Redis.
 */
export interface SettlementRecord {
  payload: string;
  appended(entryId: string): void;
}

/**
 * Another owner's record that rides in the settlement's script call (the request log's record of a
 * whole answer): opaque here, appended to its stream (of the account's shard) atomically with the
 * usage event, so it costs no round trip of its own. Told the entry id ('' when not appended), or
 * `notAppended` when the script did not run.
 */
export type SettlementRider = StreamRider;

/** A granted admission. Exactly one of `settle` or `release` must be called, in every outcome. */
export interface AdmissionTicket {
  readonly requestId: string;
  /** Accounting headers as of admission (remaining figures before this request's charge). */
  headers(): Record<string, string>;
  /** Keeps the concurrency lease alive during long streams. */
  heartbeat(): Promise<void>;
  /**
   * Replaces the reservation by the actual cost on every Redis counter (windows, key lifetime spend,
   * wallet cache), releases the lease, and returns the accounting headers after the charge. A
   * `rider` is appended in the same script call (see SettlementRider).
   */
  settle(actualCredits: number, record?: SettlementRecord, rider?: SettlementRider): Promise<Record<string, string>>;
  /** No charge: drops the reservation and the lease (failed requests are free). */
  release(): Promise<void>;
}

export interface Admission {
  /** Throws a GatewayError (401/403/402/429) carrying the accounting headers in `error.headers`. */
  admit(request: AdmissionRequest): Promise<AdmissionTicket>;
  /** The accounting headers for a key without admitting anything (free endpoints, early errors). */
  peekHeaders(key: AuthenticatedKey): Promise<Record<string, string>>;
}
