/**
 * `Idempotency-Key` on the paid POSTs (task submit, image generation and edits). Wraps a route
 * handler: a request with the header claims (API key, header value) in the shared store before
 * the handler runs; the handler's successful answer is kept for the window and replayed to every
 * later request with the same key and body, without admission, so it is charged once. A different
 * body under the same key is refused (422). A duplicate arriving while the first still runs waits
 * for its answer (`wait`: task submits, which take milliseconds) or is refused with 409
 * (`conflict`: images, which take seconds). Without the header nothing changes.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { AuthenticatedKey } from '../auth/authenticated-key';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import { locals } from '../http/request-context';
import { createIdempotencyStore, type IdempotencyRecord, type IdempotencyStore } from './idempotency-store';
import { requestFingerprint, type BinaryContent } from './request-fingerprint';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
const VALID_KEY = /^[\x21-\x7e]{1,255}$/;
const POLL_MS = 25;
/** How long a `wait` duplicate waits for the first request's answer before a 409. */
const MAX_WAIT_MS = 10_000;

export type WhileRunning = 'wait' | 'conflict';

export interface IdempotentRouteOptions {
  authenticate(req: Request): Promise<AuthenticatedKey>;
  peekHeaders(key: AuthenticatedKey): Promise<Record<string, string>>;
  /** How the route reads a binary (multipart) body for comparison; its bytes by default. */
  binaryContent?: BinaryContent;
}

type Handler = (req: Request, res: Response) => Promise<void>;

function headerValue(req: Request): string | undefined {
  const raw = req.headers[IDEMPOTENCY_HEADER];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!VALID_KEY.test(value)) {
    throw new GatewayError('invalid_request', 'Idempotency-Key: 1 to 255 printable ASCII characters without spaces', {
      param: 'Idempotency-Key',
    });
  }
  return value;
}

function mismatch(): GatewayError {
  return new GatewayError(
    'invalid_request',
    'Idempotency-Key was already used with a different request (another body or endpoint); use a new key for a new request',
    { status: 422, param: 'Idempotency-Key' },
  );
}

function stillRunning(): GatewayError {
  return new GatewayError(
    'conflict',
    'a request with this Idempotency-Key is still being processed; retry after it has finished to get its answer',
    { param: 'Idempotency-Key', retryAfterSeconds: 1 },
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createIdempotentRoute(deps: Dependencies, options: IdempotentRouteOptions) {
  const store: IdempotencyStore = createIdempotencyStore({
    redis: deps.redis,
    redisKeys: deps.redisKeys,
    clock: deps.clock,
    ttlMs: deps.config.idempotencyTtlMs,
  });

  /** Waits while another request holds the claim; undefined when it was dropped (the first failed). */
  async function settledRecord(
    keyId: number,
    value: string,
    record: IdempotencyRecord,
    whileRunning: WhileRunning,
  ): Promise<IdempotencyRecord | undefined> {
    const deadline = Date.now() + MAX_WAIT_MS;
    let current: IdempotencyRecord | undefined = record;
    while (current?.state === 'running' && whileRunning === 'wait' && Date.now() < deadline) {
      await sleep(POLL_MS);
      current = await store.read(keyId, value);
    }
    return current;
  }

  function replay(res: Response, record: Extract<IdempotencyRecord, { state: 'done' }>, headers: Record<string, string>): void {
    for (const [name, headerValueText] of Object.entries(headers)) res.setHeader(name, headerValueText);
    res.setHeader(REPLAYED_HEADER, 'true');
    const facts = locals(res).facts;
    if (facts) facts.replayed = true;
    res.status(record.status).json(record.body);
  }

  /** Runs the handler while holding the claim; keeps its successful answer, drops the claim otherwise. */
  async function runClaimed(
    handler: Handler,
    req: Request,
    res: Response,
    keyId: number,
    value: string,
    claim: { owner: string; startedAt: number; fingerprint: string },
  ): Promise<void> {
    let kept = false;
    const json = res.json.bind(res);
    // The answer is kept before it is sent: a client that retries the moment it reads it finds it.
    res.json = (body: unknown) => {
      if (kept || res.statusCode >= 400) return json(body);
      kept = true;
      void store
        .complete(keyId, value, claim, { status: res.statusCode, body })
        .catch((error: unknown) =>
          deps.logger.error({ err: error, requestId: locals(res).requestId }, 'keeping an idempotent answer failed'),
        )
        .finally(() => json(body));
      return res;
    };
    try {
      await handler(req, res);
    } finally {
      if (!kept) {
        await store
          .release(keyId, value, claim.owner)
          .catch((error: unknown) =>
            deps.logger.error({ err: error, requestId: locals(res).requestId }, 'dropping an idempotency claim failed'),
          );
      }
    }
  }

  return function idempotent(whileRunning: WhileRunning, handler: Handler): RequestHandler {
    return async (req, res) => {
      const value = headerValue(req);
      if (value === undefined) return handler(req, res);
      const key = await options.authenticate(req);
      const fingerprint = await requestFingerprint(req.path, req.body, req.headers['content-type'] ?? '', options.binaryContent);
      for (;;) {
        const claim = await store.claim(key.keyId, value, fingerprint);
        if (claim.claimed) return runClaimed(handler, req, res, key.keyId, value, { ...claim, fingerprint });
        const headers = await options.peekHeaders(key).catch(() => ({}));
        locals(res).accountingHeaders = headers;
        if (claim.record.fingerprint !== fingerprint) throw mismatch();
        const record = await settledRecord(key.keyId, value, claim.record, whileRunning);
        if (record === undefined) continue; // the first attempt failed and let go: this one may do the work
        if (record.fingerprint !== fingerprint) throw mismatch();
        if (record.state === 'running') throw stillRunning();
        return replay(res, record, headers);
      }
    };
  };
}
