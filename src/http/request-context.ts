/** Per-request values kept on `res.locals` (express sets it; the inference fast path creates it), typed in one place. */
import type { ServerResponse } from 'node:http';
import type { Protocol } from '../ir/protocol';
import type { StreamRider } from '../redis/durable-stream-producer';

export type ErrorSurface = Protocol | 'gateway';

export interface RequestLocals {
  requestId: string;
  /** Which envelope errors of this request are rendered in. */
  surface: ErrorSurface;
  /** Route label for metrics (the route pattern, never the raw URL). */
  routeLabel?: string;
  /** Accounting headers computed by admission, added to every response including errors. */
  accountingHeaders?: Record<string, string>;
  /** The body's text as received (the inference fast path): a kept request body is this, not the parsed value serialized again. */
  bodyText?: string;
  /** Set once the caller's key authenticated: what the request log records (issue 22). */
  facts?: RequestFacts;
  /** The request log's record of a whole answer as of now, to ride in its settlement (see access-log's RequestSettlementRider). */
  riderAtSettlement?: () => StreamRider | undefined;
}

/** What the request log knows of a request, filled in as it goes; recorded when the response closes. */
export interface RequestFacts {
  accountId: number;
  apiKeyId: number | null;
  protocol: string;
  /** The account (or key) keeps request and response bodies. */
  keepBodies: boolean;
  model?: string;
  upstreamAccountId?: number;
  /** Why the request failed: an error kind, and whether an upstream caused it. */
  failure?: { kind: string; upstream: boolean };
  usage?: { inputTokens: number; outputTokens: number; credits: number };
  warnings?: readonly { field: string }[];
  stream?: boolean;
  /** Answered from the idempotency store. */
  replayed?: boolean;
  /** Kept only when `keepBodies`: the parsed request body, the answer (assembled when streamed). */
  requestBody?: unknown;
  responseBody?: string;
  streamEvents?: number;
}

/** The caller authenticated: from now on the request is recorded in the request log. */
export function noteCaller(
  res: ServerResponse,
  key: { accountId: number; keyId: number; keepRequestBodies?: boolean },
  protocol: string,
): RequestFacts {
  const facts: RequestFacts = { accountId: key.accountId, apiKeyId: key.keyId, protocol, keepBodies: key.keepRequestBodies === true };
  locals(res).facts = facts;
  return facts;
}

/** The call was billed: its tokens, credits and the upstream account that served it, for the request log. */
export function noteCharge(
  res: ServerResponse,
  charge: { promptTokens: number; completionTokens: number; credits: number; upstreamAccountId: number | null; model: string },
): void {
  const facts = locals(res).facts;
  if (!facts) return;
  facts.usage = { inputTokens: charge.promptTokens, outputTokens: charge.completionTokens, credits: charge.credits };
  facts.model = charge.model;
  if (charge.upstreamAccountId !== null) facts.upstreamAccountId = charge.upstreamAccountId;
}

/** Records why the request failed, unless a more precise reason was recorded first. */
export function noteFailure(res: ServerResponse, kind: string, upstream: boolean): void {
  const facts = locals(res).facts;
  if (facts && !facts.failure) facts.failure = { kind, upstream };
}

type WithLocals = ServerResponse & { locals?: Record<string, unknown> };

/** Works on an express Response and on a bare node ServerResponse alike. */
export function locals(res: ServerResponse): RequestLocals {
  const holder = res as WithLocals;
  holder.locals ??= {};
  return holder.locals as unknown as RequestLocals;
}
