/** Prometheus metrics, one registry per app (no global singleton). */
import { Counter, Histogram, Registry, Gauge, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'route' | 'method' | 'status'>;
  httpDuration: Histogram<'route' | 'method' | 'status'>;
  translationWarnings: Counter<'from' | 'to' | 'field'>;
  upstreamFailures: Counter<'protocol' | 'reason'>;
  reconcileDrift: Gauge<'kind'>;
  /** Requests refused before a key authenticated: counted here, never stored per request (issue 22). */
  unauthenticatedRequests: Counter<'route'>;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({ name: 'gateway_http_requests_total', help: 'HTTP requests by route and status', labelNames: ['route', 'method', 'status'], registers: [registry] }),
    httpDuration: new Histogram({
      name: 'gateway_http_request_duration_seconds', help: 'HTTP request latency by route and status',
      labelNames: ['route', 'method', 'status'], buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120], registers: [registry],
    }),
    translationWarnings: new Counter({ name: 'gateway_translation_warnings_total', help: 'Fields that could not cross a protocol translation', labelNames: ['from', 'to', 'field'], registers: [registry] }),
    upstreamFailures: new Counter({ name: 'gateway_upstream_failures_total', help: 'Upstream attempts that failed', labelNames: ['protocol', 'reason'], registers: [registry] }),
    unauthenticatedRequests: new Counter({ name: 'gateway_unauthenticated_requests_total', help: 'Requests refused before a key authenticated, by route', labelNames: ['route'], registers: [registry] }),
    reconcileDrift: new Gauge({ name: 'gateway_reconcile_drift_credits', help: 'Credits of drift between Redis counters and the ledger at the last reconcile', labelNames: ['kind'], registers: [registry] }),
  };
}
