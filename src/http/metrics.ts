/**
 * Prometheus metrics, one registry per app (no global singleton). Label values are bounded: routes
 * are express patterns, models are catalog ids (never the client's raw name), upstream accounts are
 * ids from the operator's configuration, reasons are error classes or status classes.
 */
import { Counter, Histogram, Registry, Gauge, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'route' | 'method' | 'status'>;
  httpDuration: Histogram<'route' | 'method' | 'status'>;
  translationWarnings: Counter<'from' | 'to' | 'field'>;
  upstreamFailures: Counter<'protocol' | 'reason'>;
  reconcileDrift: Gauge<'kind'>;
  /** Streams: from the request's arrival to the first byte sent to the client. */
  timeToFirstToken: Histogram<'protocol' | 'model' | 'upstream_account'>;
  /** One upstream attempt: from sending it to its answer's headers (or its failure), by outcome. */
  upstreamAttemptDuration: Histogram<'upstream_account' | 'protocol' | 'outcome'>;
  /** Failed upstream attempts per account, by reason (an error class, 429, 4xx or 5xx). */
  upstreamAccountErrors: Counter<'upstream_account' | 'reason'>;
  /** Requests refused before a key authenticated: counted here, never stored per request (issue 22). */
  unauthenticatedRequests: Counter<'route'>;
}

const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120];

/** An upstream status as a bounded label: 429 by itself (rate limits matter on their own), otherwise its class. */
export function statusReason(status: number): string {
  return status === 429 ? '429' : `${Math.floor(status / 100)}xx`;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({
      name: 'gateway_http_requests_total',
      help: 'HTTP requests by route and status',
      labelNames: ['route', 'method', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'gateway_http_request_duration_seconds',
      help: 'HTTP request latency by route and status',
      labelNames: ['route', 'method', 'status'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120],
      registers: [registry],
    }),
    translationWarnings: new Counter({
      name: 'gateway_translation_warnings_total',
      help: 'Fields that could not cross a protocol translation',
      labelNames: ['from', 'to', 'field'],
      registers: [registry],
    }),
    upstreamFailures: new Counter({
      name: 'gateway_upstream_failures_total',
      help: 'Upstream attempts that failed',
      labelNames: ['protocol', 'reason'],
      registers: [registry],
    }),
    unauthenticatedRequests: new Counter({
      name: 'gateway_unauthenticated_requests_total',
      help: 'Requests refused before a key authenticated, by route',
      labelNames: ['route'],
      registers: [registry],
    }),
    reconcileDrift: new Gauge({
      name: 'gateway_reconcile_drift_credits',
      help: 'Credits of drift between Redis counters and the ledger at the last reconcile',
      labelNames: ['kind'],
      registers: [registry],
    }),
    timeToFirstToken: new Histogram({
      name: 'gateway_time_to_first_token_seconds',
      help: 'Streamed requests: time from arrival to the first byte sent to the client',
      labelNames: ['protocol', 'model', 'upstream_account'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    upstreamAttemptDuration: new Histogram({
      name: 'gateway_upstream_attempt_duration_seconds',
      help: 'Upstream attempts: time to the answer headers or the failure, by upstream account and outcome',
      labelNames: ['upstream_account', 'protocol', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    upstreamAccountErrors: new Counter({
      name: 'gateway_upstream_account_errors_total',
      help: 'Failed upstream attempts by upstream account and reason',
      labelNames: ['upstream_account', 'reason'],
      registers: [registry],
    }),
  };
}
