/**
 * Browsers as clients (CORS). Allowed origins come from `CORS_ALLOWED_ORIGINS` (default none: no
 * CORS header is ever sent). A listed origin gets its own origin echoed back with credentials allowed;
 * `*` lets any origin read answers but never with credentials (the Fetch spec forbids `*` with
 * credentials, and a key sent from any page is the page's own business, not a cookie's).
 * Preflights (`OPTIONS` with `Access-Control-Request-Method`) are answered on every path, allowed or
 * not (a refused origin simply gets no CORS header, so the browser blocks the call). A console
 * session cookie sent from an origin that is neither allowed nor the gateway's own is dropped before
 * any route sees it: credentials are never accepted cross-origin.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';

const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
const DEFAULT_ALLOWED_HEADERS =
  'authorization, content-type, x-api-key, x-goog-api-key, anthropic-version, anthropic-beta, messages-version, messages-beta, x-csrf-token, last-event-id, idempotency-key';
/** Response headers a browser script may read: accounting (interface section 8), request id, warnings. */
const EXPOSED_HEADERS = [
  'x-request-id',
  'request-id',
  'x-request-cost-credits',
  'x-gateway-warnings',
  'retry-after',
  'retry-after-ms',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-quota-remaining-credits',
  'x-org-quota-remaining-credits',
  'anthropic-ratelimit-tokens-limit',
  'anthropic-ratelimit-tokens-remaining',
  'anthropic-ratelimit-tokens-reset',
].join(', ');
const PREFLIGHT_MAX_AGE_SECONDS = '600';

type Verdict = 'credentialed' | 'public' | 'refused';

function verdict(allowed: readonly string[], origin: string): Verdict {
  if (allowed.includes(origin)) return 'credentialed';
  return allowed.includes('*') ? 'public' : 'refused';
}

/** The CORS response headers for a request (none without an `Origin` or from a refused origin). */
export function applyCorsHeaders(allowed: readonly string[], req: IncomingMessage, res: ServerResponse): void {
  const origin = req.headers.origin;
  if (allowed.length === 0 || origin === undefined) return;
  const answer = verdict(allowed, origin);
  res.setHeader('vary', 'Origin');
  if (answer === 'refused') return;
  res.setHeader('access-control-allow-origin', answer === 'public' ? '*' : origin);
  if (answer === 'credentialed') res.setHeader('access-control-allow-credentials', 'true');
  res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
}

function sameOrigin(req: IncomingMessage, origin: string): boolean {
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

/** Express middleware, first in the chain: CORS headers, preflight answers, cross-origin cookies dropped. */
export function corsMiddleware(allowed: readonly string[]) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.headers.origin;
    applyCorsHeaders(allowed, req, res);
    if (
      origin !== undefined &&
      req.headers.cookie !== undefined &&
      verdict(allowed, origin) !== 'credentialed' &&
      !sameOrigin(req, origin)
    ) {
      delete req.headers.cookie;
    }
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      if (origin !== undefined && verdict(allowed, origin) !== 'refused') {
        res.setHeader('access-control-allow-methods', ALLOWED_METHODS);
        res.setHeader('access-control-allow-headers', req.headers['access-control-request-headers'] ?? DEFAULT_ALLOWED_HEADERS);
        res.setHeader('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS);
      }
      res.status(204).end();
      return;
    }
    next();
  };
}
