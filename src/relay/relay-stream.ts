/**
 * A streamed answer: frames from the stream source (translated, or the upstream's own bytes with a
 * light meter; see stream-sources) go to the client as they come. Headers are committed with the
 * first frame, so a failure before it can still fail over; after it, failures become the protocol's
 * error frame. The client leaving aborts the upstream at once and bills the usage produced until
 * then; a key revoked or deleted mid-stream cuts the stream with the authentication error frame (free).
 */
import type { ServerResponse } from 'node:http';
import type { Dependencies } from '../dependencies';
import type { GatewayError } from '../errors/gateway-error';
import { markTrace } from '../http/request-trace';
import { locals, noteFailure } from '../http/request-context';
import { toUpstreamError, type UpstreamResponse } from '../upstream/upstream-client';
import { RELEASE, type AttemptOutcome } from './attempt-outcome';
import { relayCharge } from './call-charge';
import { captureStreamBody } from './capture-stream-body';
import { CODECS } from './codec-registry';
import { keyInvalidatedError } from '../auth/key-invalidated-error';
import type { RelayPlan } from './relay-plan';
import type { RelayServices } from './relay-services';
import { reportWarnings } from './report-warnings';
import { storeResponse } from './store-response';
import { createStreamSource } from './stream-sources';
import type { PreparedUpstreamCall } from './upstream-request';
import { setStreamHeaders } from './stream-headers';
import { writeWithBackpressure } from './write-with-backpressure';

/**
 * An error before the first byte that does not reach the client as it came. Pass-through: any but a
 * context overflow, which is the caller's prompt (no other account takes it) and goes out in the
 * upstream's own frames. Translated: an overflow, so the attempt loop refuses it in the caller's form.
 */
function heldBack(passThrough: boolean, error: GatewayError): boolean {
  return passThrough ? error.contextOverflow === undefined : error.contextOverflow !== undefined;
}

export async function relayStream(
  plan: RelayPlan,
  call: PreparedUpstreamCall,
  response: UpstreamResponse,
  res: ServerResponse,
  abort: AbortController,
  isKeyInvalidated: () => boolean,
  deps: Dependencies,
  services: RelayServices,
): Promise<AttemptOutcome> {
  const source = createStreamSource(plan, call);
  let committed = false;
  let lastWrite = Date.now();
  let failure: GatewayError | undefined;
  /** Pass-through: the upstream's own error frame already reached the client. */
  let upstreamSentErrorFrame = false;
  const facts = locals(res).facts;
  // Kept bodies (issue 22): what the client receives, gathered up to a few times the stored cap.
  const capture = facts?.keepBodies ? captureStreamBody(plan, deps.config.requestLog.bodyMaxBytes * 4) : undefined;

  const commit = () => {
    if (committed) return;
    committed = true;
    markTrace(res, 'translated'); // the first frame is encoded
    setStreamHeaders(plan, res);
    // No flushHeaders(): the frame written right after goes out in the same packet as the headers,
    // one wake-up of the client instead of two before its first byte.
    res.statusCode = 200;
    // issue 22: time to first token, labelled by the catalog's model id and the configured upstream account.
    deps.metrics.timeToFirstToken.observe(
      { protocol: plan.protocol, model: plan.model.id, upstream_account: String(call.account.id) },
      (deps.clock.now() - plan.startedAt) / 1000,
    );
  };
  const write = async (data: string): Promise<boolean> => {
    if (data === '') return true;
    commit();
    lastWrite = Date.now();
    capture?.add(data);
    return writeWithBackpressure(res, data);
  };

  const keepalive = setInterval(
    () => {
      if (!committed || res.writableEnded || Date.now() - lastWrite < deps.config.streamKeepaliveMs) return;
      lastWrite = Date.now();
      res.write(CODECS[plan.protocol].inbound.keepaliveFrame(plan.streamOptions));
    },
    Math.max(250, Math.floor(deps.config.streamKeepaliveMs / 2)),
  );
  const heartbeat = setInterval(
    () => {
      void plan.admitted.heartbeat().catch(() => undefined);
    },
    Math.max(1_000, Math.floor(deps.config.leaseTtlMs / 3)),
  );

  try {
    response.body.setEncoding('utf8');
    try {
      for await (const chunk of response.body as AsyncIterable<string>) {
        const pushed = source.push(chunk);
        if (pushed.error && !committed && heldBack(source.passThrough, pushed.error)) {
          failure = pushed.error;
          break;
        }
        // Otherwise the frames go out: pass-through, the upstream's bytes as they are, its own error frame included.
        if (!(await write(pushed.out))) break;
        if (upstreamSentErrorFrame) continue;
        if (pushed.error) {
          failure = pushed.error;
          upstreamSentErrorFrame = source.passThrough;
          // Pass-through: the upstream's frames after its error (Responses' `response.failed`) follow it.
          if (!source.passThrough) break;
        }
      }
      if (!failure && !abort.signal.aborted && !res.destroyed) {
        const ended = source.end();
        if (await write(ended.out)) failure = ended.error;
      }
    } catch (error) {
      if (!abort.signal.aborted) failure ??= toUpstreamError(error);
    }

    // The key was revoked or deleted on some API process: cut with the authentication error frame.
    if (isKeyInvalidated()) {
      const error = keyInvalidatedError();
      if (!committed) throw error;
      noteFailure(res, error.kind, false);
      if (!res.writableEnded) res.end(source.failFrames(error));
      return RELEASE;
    }
    // The client went away: the upstream is already aborted; bill what was produced.
    if (abort.signal.aborted || res.destroyed) {
      if (!committed) return RELEASE;
      return { kind: 'end', ending: { kind: 'settle', charge: relayCharge(plan, source.untilAbort(), call.account.id, 'aborted') } };
    }
    if (failure) {
      if (!committed) return { kind: 'retry', error: failure };
      // After the first byte: the protocol's error frame, and the call is free.
      noteFailure(res, failure.kind, true);
      if (!upstreamSentErrorFrame) await write(source.failFrames(failure));
      res.end();
      deps.logger.warn({ requestId: plan.requestId, err: failure.message }, 'stream failed after the first byte');
      return RELEASE;
    }
    // A streamed Responses answer is stored before its terminal event reaches the client, so a
    // previous_response_id sent right after it always finds it.
    const answer = source.answer?.();
    if (answer) {
      await storeResponse(plan, answer, JSON.stringify({ id: plan.streamOptions.responseId }), services).catch((error: unknown) => {
        deps.logger.error({ requestId: plan.requestId, err: error }, 'could not store the response');
      });
    }
    await write(source.close());
    commit();
    res.end();
    markTrace(res, 'written');
    reportWarnings(plan, deps);
    return { kind: 'end', ending: { kind: 'settle', charge: relayCharge(plan, source.usage(), call.account.id, 'ok') } };
  } finally {
    clearInterval(keepalive);
    clearInterval(heartbeat);
    if (capture && facts && committed) {
      const kept = capture.finish();
      facts.responseBody = kept.body;
      facts.streamEvents = kept.events;
    }
  }
}
