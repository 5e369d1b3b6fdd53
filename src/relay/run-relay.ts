/**
 * The attempt loop: the group's accounts that serve the model, same-protocol (pass-through) first;
 * a failure before the first byte reaches the client cools the account down and tries the next one;
 * after the first byte, failures become the protocol's error frame. Returns how the call ends
 * (settle with its charge, or release); the admission itself belongs to the pipeline that admitted it.
 */
import type { ServerResponse } from 'node:http';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import { locals, noteFailure } from '../http/request-context';
import { readUpstreamText, toUpstreamError, type UpstreamResponse } from '../upstream/upstream-client';
import type { CallEnding } from '../billing/run-paid-call';
import { chooseAccounts, lookUpRouting } from './choose-accounts';
import { CODECS } from './codec-registry';
import { inlineRemoteImages } from './inline-remote-images';
import { statusReason } from '../http/metrics';
import { markTrace } from '../http/request-trace';
import { timeAttempt } from './observe-attempt';
import { keyInvalidatedError } from '../auth/key-invalidated-error';
import { relayComplete } from './relay-complete';
import type { RelayPlan } from './relay-plan';
import type { RelayServices } from './relay-services';
import { relayStream } from './relay-stream';
import { prepareUpstreamCall } from './upstream-request';
import { refuseInStream } from './refuse-in-stream';
import { forwardedAsSaid, scrubUpstreamErrorBody, withOverflowNumbers, withVerbatimAnswer } from './upstream-error-answer';
import { upstreamErrorHeaders } from '../protocols/shared/upstream-error-headers';

/** Upstream statuses worth another account: its limits, its outages, our credential on it. */
function worthFailover(status: number): boolean {
  return status === 408 || status === 429 || status >= 500 || status === 401 || status === 403 || status === 404;
}

/**
 * The caller's request refused upstream (logged as the upstream's refusal): inside a stream where its
 * protocol says so (free), else thrown for the error renderer.
 */
function refuse(plan: RelayPlan, res: ServerResponse, error: GatewayError): CallEnding {
  noteFailure(res, error.kind, true);
  if (refuseInStream(plan, res, error)) return { kind: 'release' };
  throw error;
}

export async function runRelay(plan: RelayPlan, res: ServerResponse, deps: Dependencies, services: RelayServices): Promise<CallEnding> {
  const lookup = await (plan.routing ?? lookUpRouting(plan, deps, services));
  const route = await chooseAccounts(plan, lookup, deps); // issue 17: candidates, affinity, explained refusals
  const ordered = route.ordered;
  markTrace(res, 'routed');

  const abort = new AbortController();
  const onClose = () => {
    if (!res.writableEnded) abort.abort();
  };
  res.on('close', onClose);
  // A client that left during admission or routing closed the response before anyone listened: no upstream call.
  if (res.destroyed) onClose();
  // Listen before the first upstream attempt: a key deleted while the upstream is still silent must
  // stop the request too (401 before the first byte, the auth error frame after it).
  let keyInvalidated = false;
  const unsubscribe = services.authenticator.onInvalidated(plan.key.secretHmac, () => {
    keyInvalidated = true;
    abort.abort();
  });
  const isKeyInvalidated = () => keyInvalidated;
  let imagesInlined = false;
  let lastError: GatewayError | undefined;
  try {
    for (const account of ordered.slice(0, Math.max(1, deps.config.upstream.maxAttempts))) {
      if (abort.signal.aborted) break;
      const facts = locals(res).facts;
      if (facts) facts.upstreamAccountId = account.id;
      const passThrough = plan.passThroughAllowed && account.protocol === plan.protocol;
      if (!passThrough && CODECS[account.protocol].upstream.needsInlineImages && !imagesInlined) {
        await inlineRemoteImages(plan.request, deps.config.imageFetch);
        imagesInlined = true;
      }
      const call = prepareUpstreamCall(plan, account);
      markTrace(res, 'prepared'); // the upstream request is encoded
      let response: UpstreamResponse;
      const attempted = timeAttempt(deps, account); // issue 22: per-upstream latency and errors
      try {
        response = await services.upstreamClient.call({ url: call.url, headers: call.headers, body: call.body, signal: abort.signal });
      } catch (error) {
        if (abort.signal.aborted) break;
        lastError = toUpstreamError(error);
        attempted(lastError.kind);
        route.failed(account, lastError); // issue 17
        deps.metrics.upstreamFailures.inc({ protocol: account.protocol, reason: lastError.kind });
        services.upstreams.cooldown(account.id, deps.config.upstream.cooldownMs, lastError.kind);
        continue;
      }
      markTrace(res, 'upstream');
      attempted(response.status >= 400 ? statusReason(response.status) : null);
      if (response.status >= 400) {
        const text = scrubUpstreamErrorBody(await readUpstreamText(response).catch(() => ''), account);
        const decoded = CODECS[account.protocol].upstream.decodeError(response.status, text, response.headers);
        deps.metrics.upstreamFailures.inc({ protocol: account.protocol, reason: String(response.status) });
        deps.logger.warn(
          { requestId: plan.requestId, upstreamAccount: account.id, status: response.status, body: text.slice(0, 500) },
          'upstream error',
        );
        // Native pass-through: the upstream's own answer reaches the client as it said it.
        const asSaid =
          call.passThrough && forwardedAsSaid(response.status, decoded)
            ? withVerbatimAnswer(decoded, { status: response.status, body: text, headers: upstreamErrorHeaders(response.headers) })
            : undefined;
        // A 4xx the decoder calls upstream_error is the account's fault (its credential, its model
        // name), never the caller's: another account may serve.
        const accountFault = decoded.kind === 'upstream_error' && response.status < 500;
        if (worthFailover(response.status) || accountFault) {
          services.upstreams.cooldown(account.id, deps.config.upstream.cooldownMs, String(response.status));
          lastError =
            asSaid ??
            (accountFault
              ? new GatewayError(
                  'upstream_error',
                  `upstream account ${account.id} rejected the gateway's request (HTTP ${response.status})`,
                  { upstream: { status: response.status } },
                )
              : decoded);
          route.failed(account, lastError); // issue 17
          continue;
        }
        // The client's request was refused upstream: as the upstream said it, or in the client's envelope.
        route.served(account); // issue 17: routing worked; the answer is the caller's error
        if (asSaid) {
          noteFailure(res, decoded.kind, true);
          throw asSaid;
        }
        return refuse(plan, res, withOverflowNumbers(decoded, plan.model, plan.inputEstimate));
      }
      const outcome = plan.stream
        ? await relayStream(plan, call, response, res, abort, isKeyInvalidated, deps, services)
        : await relayComplete(plan, call, response, res, abort, isKeyInvalidated, deps, services);
      if (outcome.kind === 'end') {
        route.served(account); // issue 17
        return outcome.ending;
      }
      // An overflow reported inside the answer is the caller's prompt: no other account would take it.
      if (outcome.error.contextOverflow) return refuse(plan, res, withOverflowNumbers(outcome.error, plan.model, plan.inputEstimate));
      lastError = outcome.error;
      deps.metrics.upstreamAccountErrors.inc({ upstream_account: String(account.id), reason: lastError.kind });
      route.failed(account, lastError); // issue 17
      services.upstreams.cooldown(account.id, deps.config.upstream.cooldownMs, lastError.kind);
    }
  } finally {
    res.off('close', onClose);
    unsubscribe();
    route.report(); // issue 17: the decision chain in the logs
  }
  if (keyInvalidated) throw keyInvalidatedError();
  // The client left before an answer started: nothing delivered, nothing billed.
  if (abort.signal.aborted) return { kind: 'release' };
  // Every account tried failed: the upstreams' failure, not a gateway refusal.
  if (lastError) noteFailure(res, lastError.kind, true);
  // A 404/429/529 no other account absorbed, on native pass-through: as the last upstream said it.
  if (lastError?.verbatim) throw lastError;
  throw route.refusal(lastError) ?? new GatewayError('no_available_account', 'no available account'); // issue 17
}
