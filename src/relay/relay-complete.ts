/** A non-streamed answer: read whole, decode (or pass through unchanged); the pipeline bills it, then it is sent. */
import type { ServerResponse } from 'node:http';
import type { Dependencies } from '../dependencies';
import { locals } from '../http/request-context';
import { sendJsonText } from '../http/send-json';
import { markTrace } from '../http/request-trace';
import { GatewayError } from '../errors/gateway-error';
import type { IrResponse } from '../ir/response';
import type { Usage } from '../ir/usage';
import type { UpstreamResponse } from '../upstream/upstream-client';
import { readUpstreamText } from '../upstream/upstream-client';
import { RELEASE, type AttemptOutcome } from './attempt-outcome';
import { relayCharge } from './call-charge';
import { CODECS } from './codec-registry';
import { keyInvalidatedError } from '../auth/key-invalidated-error';
import type { RelayPlan } from './relay-plan';
import type { RelayServices } from './relay-services';
import { reportWarnings } from './report-warnings';
import { storeResponse } from './store-response';
import type { PreparedUpstreamCall } from './upstream-request';
import { warningHeader } from './warning-header';

export async function relayComplete(
  plan: RelayPlan,
  call: PreparedUpstreamCall,
  response: UpstreamResponse,
  res: ServerResponse,
  abort: AbortController,
  isKeyInvalidated: () => boolean,
  deps: Dependencies,
  services: RelayServices,
): Promise<AttemptOutcome> {
  let text: string;
  try {
    text = await readUpstreamText(response);
    markTrace(res, 'received');
  } catch (error) {
    if (abort.signal.aborted) return leftEarly(isKeyInvalidated);
    return { kind: 'retry', error: error as GatewayError };
  }
  // Pass-through: the body goes out as it came; a light meter reads the usage (nothing is stored,
  // since Responses passes through only with store: false). Translated: decoded and encoded.
  let usage: Usage;
  let body: string;
  let contentType: string | undefined;
  if (call.passThrough) {
    const meter = CODECS[call.account.protocol].createPassThroughMeter(false);
    meter.push(text);
    const metered = meter.end();
    if (metered.error) return undecodable(plan, text, deps, undefined);
    if (abort.signal.aborted || res.destroyed) return leftEarly(isKeyInvalidated);
    usage = metered.usage;
    body = text;
  } else {
    let ir: IrResponse;
    try {
      ir = CODECS[call.account.protocol].upstream.decodeResponse(JSON.parse(text), call.decodeContext);
    } catch (error) {
      return undecodable(plan, text, deps, error);
    }
    // The client left while we waited: nothing was delivered, nothing is billed.
    if (abort.signal.aborted || res.destroyed) return leftEarly(isKeyInvalidated);
    usage = ir.usage;
    if (plan.encodeAnswer) {
      ({ body, contentType } = plan.encodeAnswer({ ...ir, model: plan.model.id }));
    } else {
      body = JSON.stringify(
        CODECS[plan.protocol].inbound.encodeResponse({ ...ir, model: plan.model.id }, plan.streamOptions, plan.context),
      );
      // An answer with an id to be stored under (Responses) is kept for chaining.
      if (plan.streamOptions.responseId !== undefined) await storeResponse(plan, ir, body, services);
    }
  }
  markTrace(res, 'translated');
  const charge = relayCharge(plan, usage, call.account.id, 'ok');
  // Before the settlement: the request record riding in it holds the kept answer.
  const facts = locals(res).facts;
  if (facts?.keepBodies) facts.responseBody = body;
  return {
    kind: 'end',
    ending: {
      kind: 'settle',
      charge,
      deliver(headers) {
        markTrace(res, 'settled');
        for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
        res.setHeader('x-request-cost-credits', String(charge.credits));
        const warnings = warningHeader(plan.warnings);
        if (warnings) res.setHeader('x-gateway-warnings', warnings);
        reportWarnings(plan, deps);
        if (contentType) res.setHeader('content-type', contentType);
        sendJsonText(res, 200, body);
        markTrace(res, 'written');
      },
    },
  };
}

function undecodable(plan: RelayPlan, text: string, deps: Dependencies, error: unknown): AttemptOutcome {
  deps.logger.warn({ requestId: plan.requestId, err: error, body: text.slice(0, 300) }, 'undecodable upstream answer');
  return { kind: 'retry', error: new GatewayError('upstream_error', 'upstream answered with a body the gateway could not read') };
}

/** Nothing delivered: free; a key cut while we waited answers 401 (the client may still be there). */
function leftEarly(isKeyInvalidated: () => boolean): AttemptOutcome {
  if (isKeyInvalidated()) throw keyInvalidatedError();
  return RELEASE;
}
