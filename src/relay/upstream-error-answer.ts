/**
 * An upstream's error answer on its way to the client or the logs: scrubbed of credentials, kept
 * as the upstream said it on native pass-through (a client error it answered, a 404/429/529 no other
 * account absorbed), and a context overflow completed with the numbers the caller's wording needs.
 */
import { GatewayError, type VerbatimAnswer } from '../errors/gateway-error';
import type { CatalogModel } from '../catalog/model';
import { registerSecret, scrubSecrets } from '../errors/scrub-secrets';
import type { UpstreamAccount } from '../upstream/upstream-account';

/**
 * THE one spot every raw upstream error body passes through before it reaches a client or a log:
 * every upstream account's credential known to the process is removed by value (the serving
 * account's is registered here too, in case it was never loaded through the directory).
 */
export function scrubUpstreamErrorBody(body: string, account: UpstreamAccount): string {
  registerSecret(account.credential);
  return scrubSecrets(body);
}

/** Errors that are the caller's (or the group's capacity), not the gateway's account problem. */
export function forwardedAsSaid(status: number, decoded: GatewayError): boolean {
  // An overflow is re-worded in the caller's protocol so its compact-and-retry recognises it.
  if (decoded.contextOverflow) return false;
  if (status === 404 || status === 429 || status === 529) return true;
  // Google answers a wrong key with a 400 the decoder calls upstream_error: the gateway's problem.
  return (status === 400 || status === 413 || status === 422) && decoded.kind !== 'upstream_error';
}

/** The decoded error, carrying the upstream's own answer for the error renderer. */
export function withVerbatimAnswer(decoded: GatewayError, verbatim: VerbatimAnswer): GatewayError {
  return copyError(decoded, { verbatim });
}

/**
 * An overflow whose upstream did not say the numbers (OpenAI's Responses wording, Moonshot's) gets
 * the model's context window and at least one token more than it as the prompt's size: clients
 * (Claude Code) read both numbers to decide how much to trim.
 */
export function withOverflowNumbers(error: GatewayError, model: CatalogModel, inputEstimate: number): GatewayError {
  const overflow = error.contextOverflow;
  if (!overflow || (overflow.inputTokens !== undefined && overflow.maxTokens !== undefined)) return error;
  const maxTokens = overflow.maxTokens ?? model.contextWindow;
  const inputTokens = overflow.inputTokens ?? Math.max(inputEstimate, maxTokens + 1);
  return copyError(error, { contextOverflow: { inputTokens, maxTokens } });
}

function copyError(
  error: GatewayError,
  changes: { verbatim?: VerbatimAnswer; contextOverflow?: GatewayError['contextOverflow'] },
): GatewayError {
  return new GatewayError(error.kind, error.message, {
    status: error.status,
    param: error.param,
    retryAfterSeconds: error.retryAfterSeconds,
    headers: error.headers,
    upstream: error.upstream,
    contextOverflow: changes.contextOverflow ?? error.contextOverflow,
    verbatim: changes.verbatim ?? error.verbatim,
    cause: error.cause,
  });
}
