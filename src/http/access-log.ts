/**
 * One log line and one metric sample per request, with the request id; never the secret. The line
 * carries the user agent, not every header: serializing and redacting all headers of every request
 * was a measurable share of the hot path (DESIGN 10), and credentials must not be logged anyway.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import type { StreamRider } from '../redis/durable-stream-producer';
import { redactText, type Logger } from './logger';
import type { Metrics } from './metrics';
import { locals } from './request-context';

/** When the request arrived, how long it took, and when its first byte (the status line) left; ms. */
export interface RequestTiming {
  startedAt: number;
  durationMs: number;
  ttfbMs: number | null;
}

/** Told of every request when its response closes (the request log, issue 22). */
export type RequestCloseListener = (req: IncomingMessage, res: ServerResponse, timing: RequestTiming) => void;

/**
 * Asked when the response's last byte is about to be sent (`res.end`): returns true to hold it back
 * until it calls `release` (the request log puts the request's record in Redis first), false to let it go.
 */
export type RequestEndHold = (res: ServerResponse, timing: RequestTiming, release: () => void) => boolean;

/**
 * Asked when a whole answer is settled, just before it is sent: the request's record, to ride in the
 * settlement's script call (then its end is not held), or undefined.
 */
export type RequestSettlementRider = (res: ServerResponse, timing: RequestTiming) => StreamRider | undefined;

/** What the request log observes of every request. */
export interface RequestObserver {
  onClose: RequestCloseListener;
  holdEnd?: RequestEndHold;
  riderAtSettlement?: RequestSettlementRider;
}

/** `res.end` held back by `hold` until it releases it; an `end` called again meanwhile is ignored (it would write after the end). */
function holdEnds(res: ServerResponse, hold: RequestEndHold, timing: () => RequestTiming): void {
  const end = res.end;
  let held = false;
  res.end = function heldEnd(this: ServerResponse, ...args: unknown[]) {
    if (held) return this;
    const release = () => {
      Reflect.apply(end, this, args);
    };
    if (!hold(res, timing(), release)) return Reflect.apply(end, this, args) as ServerResponse;
    held = true;
    return this;
  } as ServerResponse['end'];
}

/** Records the request when its response closes. `route` gives the metric label when no routeLabel was set. */
export function observeRequest(
  logger: Logger,
  metrics: Metrics,
  req: IncomingMessage,
  res: ServerResponse,
  route: () => string,
  observer?: RequestObserver,
): void {
  const startedAt = Date.now();
  const started = process.hrtime.bigint();
  let firstByte: bigint | undefined;
  // Every response's status line goes through writeHead (an implicit header too), so its first call is the first byte.
  const writeHead = res.writeHead;
  res.writeHead = function firstByteAt(this: ServerResponse, ...args: unknown[]) {
    firstByte ??= process.hrtime.bigint();
    return Reflect.apply(writeHead, this, args) as ServerResponse;
  } as ServerResponse['writeHead'];
  const timing = (at: bigint): RequestTiming => ({
    startedAt,
    durationMs: Math.round(Number(at - started) / 1e6),
    ttfbMs: firstByte === undefined ? null : Math.round(Number(firstByte - started) / 1e6),
  });
  if (observer?.holdEnd) holdEnds(res, observer.holdEnd, () => timing(process.hrtime.bigint()));
  const rider = observer?.riderAtSettlement;
  if (rider) locals(res).riderAtSettlement = () => rider(res, timing(process.hrtime.bigint()));
  res.once('close', () => {
    const now = process.hrtime.bigint();
    const seconds = Number(now - started) / 1e9;
    const labels = { route: locals(res).routeLabel ?? route(), method: req.method ?? 'GET', status: String(res.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, seconds);
    observer?.onClose(req, res, timing(now));
    if (!logger.isLevelEnabled('info')) return;
    logger.info(
      {
        requestId: locals(res).requestId,
        method: req.method,
        url: redactText((req as { originalUrl?: string }).originalUrl ?? req.url ?? ''),
        status: res.statusCode,
        ms: Math.round(seconds * 1000),
        aborted: !res.writableFinished,
        userAgent: req.headers['user-agent'],
      },
      'request',
    );
  });
}

/** Every path no route pattern matched (401s before routing, 404s, static files) shares this label. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The metric label of an express request: the matched route's pattern (its mount path, lowercased
 * as express matches it case-insensitively, and the route's own pattern), never the raw path, so
 * an id or a secret in a path never becomes a series and the number of series stays bounded.
 */
export function routePatternLabel(req: Request): string {
  const pattern = (req.route as { path?: unknown } | undefined)?.path;
  return pattern === undefined ? UNMATCHED_ROUTE : `${req.baseUrl.toLowerCase()}${String(pattern)}`;
}

export function accessLog(logger: Logger, metrics: Metrics, observer?: RequestObserver): RequestHandler {
  return (req, res, next) => {
    observeRequest(logger, metrics, req, res, () => routePatternLabel(req), observer);
    next();
  };
}
