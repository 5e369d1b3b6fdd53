/**
 * The one error hierarchy. Every failure the gateway reports is a GatewayError with a kind; each
 * protocol codec renders it in its own envelope (status, type/code, message). Only the error
 * middleware and the stream relay write error responses.
 */
import { scrubSecrets } from './scrub-secrets';

export type ErrorKind =
  | 'invalid_request' // 400: body validation; message names the field
  | 'unsupported_model' // 400: slug unknown or retired (Responses: model_not_found)
  | 'unsupported_feature' // 400: capability gate
  | 'protocol_unavailable' // 400: the model cannot be called with this protocol
  | 'authentication' // 401
  | 'insufficient_balance' // 402: wallet or lifetime key quota exhausted
  | 'permission' // 403: IP rules, scope
  | 'not_found' // 404: path or resource
  | 'conflict' // 409
  | 'request_too_large' // 413
  | 'rate_limit' // 429: spend window, or an upstream 429 passed on
  | 'concurrency_limit' // 429: account concurrency cap
  | 'upstream_error' // 502: the upstream failed or answered garbage
  | 'no_available_account' // 503: no account of the group serves the model, or all cooling down
  | 'overloaded' // 503/529 from upstream
  | 'unavailable' // 503: a dependency of the gateway itself (Redis, PostgreSQL) cannot be reached
  | 'timeout' // 502: the interface lists transient timeouts as 502/503 `api_error`, never 504
  | 'internal'; // 500, never with a stack trace

const DEFAULT_STATUS: Record<ErrorKind, number> = {
  invalid_request: 400,
  unsupported_model: 400,
  unsupported_feature: 400,
  protocol_unavailable: 400,
  authentication: 401,
  insufficient_balance: 402,
  permission: 403,
  not_found: 404,
  conflict: 409,
  request_too_large: 413,
  rate_limit: 429,
  concurrency_limit: 429,
  upstream_error: 502,
  no_available_account: 503,
  overloaded: 503,
  unavailable: 503,
  timeout: 502,
  internal: 500,
};

export interface GatewayErrorOptions {
  status?: number;
  /** The request field at fault, when there is one (`messages[0].content`). */
  param?: string;
  /** Seconds the client should wait before retrying (`retry-after`). */
  retryAfterSeconds?: number;
  /** Extra headers to send with the error (e.g. the accounting headers are added elsewhere). */
  headers?: Record<string, string>;
  /** The upstream's own status and body, kept for logs; never shown to clients. */
  upstream?: { status: number; body?: string };
  /**
   * The prompt did not fit the model's context window (kind `invalid_request`): each caller's codec
   * words it as its own provider does, so the client's compact-and-retry recognises it.
   */
  contextOverflow?: ContextOverflow;
  /**
   * Native pass-through: the upstream's own error answer, sent to the client as the upstream said
   * it (status, body bytes, retry headers) instead of the gateway's envelope.
   */
  verbatim?: VerbatimAnswer;
  cause?: unknown;
}

export interface VerbatimAnswer {
  status: number;
  /** Already scrubbed of upstream credentials (relay/upstream-error-answer.ts). */
  body: string;
  headers: Record<string, string>;
}

/** What an upstream said of a prompt too long for the model, when it said the numbers. */
export interface ContextOverflow {
  inputTokens?: number;
  maxTokens?: number;
}

export class GatewayError extends Error {
  readonly kind: ErrorKind;
  readonly status: number;
  readonly param?: string;
  readonly retryAfterSeconds?: number;
  readonly headers?: Record<string, string>;
  readonly upstream?: { status: number; body?: string };
  readonly contextOverflow?: ContextOverflow;
  readonly verbatim?: VerbatimAnswer;

  constructor(kind: ErrorKind, message: string, options: GatewayErrorOptions = {}) {
    // Upstream credentials echoed in an upstream's error never reach a client or a log (scrub-secrets.ts).
    super(scrubSecrets(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.kind = kind;
    this.status = options.status ?? DEFAULT_STATUS[kind];
    this.param = options.param;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers;
    this.upstream =
      options.upstream?.body === undefined ? options.upstream : { ...options.upstream, body: scrubSecrets(options.upstream.body) };
    this.contextOverflow = options.contextOverflow;
    this.verbatim = options.verbatim;
  }

  /** Whether the relay may try another upstream account for this failure (before the first byte). */
  get retryable(): boolean {
    return (
      this.kind === 'upstream_error' ||
      this.kind === 'overloaded' ||
      this.kind === 'timeout' ||
      (this.kind === 'rate_limit' && this.upstream !== undefined) ||
      (this.status >= 500 && this.kind !== 'internal')
    );
  }
}

export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}

/** Maps an upstream HTTP status to our error kind: the one place that decides it. */
export function kindForUpstreamStatus(status: number): ErrorKind {
  if (status === 400 || status === 422) return 'invalid_request';
  if (status === 401) return 'upstream_error'; // our upstream credential is wrong: not the caller's fault
  if (status === 403) return 'upstream_error';
  if (status === 404) return 'upstream_error';
  if (status === 408) return 'timeout';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit';
  if (status === 503 || status === 529) return 'overloaded';
  if (status === 504) return 'timeout';
  return 'upstream_error';
}
