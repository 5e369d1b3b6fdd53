/** A non-streamed answer: read whole, decode (or pass through unchanged), bill, send. */
import type { ServerResponse } from 'node:http';
import type { Dependencies } from '../dependencies';
import { sendJsonText } from '../http/send-json';
import { GatewayError } from '../errors/gateway-error';
import type { IrResponse } from '../ir/response';
import type { UpstreamResponse } from '../upstream/upstream-client';
import { CODECS } from './codec-registry';
import type { RelayPlan } from './relay-plan';
import type { RelayServices } from './relay-services';
import { keyInvalidatedError } from './run-relay';
import { readUpstreamText } from '../upstream/upstream-client';
import { settleUsage } from './settle-usage';
import { storeResponse } from './store-response';
import type { PreparedUpstreamCall } from './upstream-request';
import { warningHeader } from './warning-header';

export type AttemptOutcome = { kind: 'done' } | { kind: 'retry'; error: GatewayError };

export async function relayComplete(plan: RelayPlan, call: PreparedUpstreamCall, response: UpstreamResponse, res: ServerResponse,
  abort: AbortController, isKeyInvalidated: () => boolean, deps: Dependencies, services: RelayServices): Promise<AttemptOutcome> {
  let text: string;
  try {
    text = await readUpstreamText(response);
  } catch (error) {
    if (abort.signal.aborted) return { kind: 'done' };
    return { kind: 'retry', error: error as GatewayError };
  }
  let ir: IrResponse;
  try {
    ir = CODECS[call.account.protocol].upstream.decodeResponse(JSON.parse(text), call.decodeContext);
  } catch (error) {
    deps.logger.warn({ requestId: plan.requestId, err: error, body: text.slice(0, 300) }, 'undecodable upstream answer');
    return { kind: 'retry', error: new GatewayError('upstream_error', 'upstream answered with a body the gateway could not read') };
  }
  // The client left while we waited: nothing was delivered, nothing is billed.
  if (abort.signal.aborted || res.destroyed) {
    await plan.ticket.release();
    if (isKeyInvalidated()) throw keyInvalidatedError();
    return { kind: 'done' };
  }
  let body: string;
  if (call.passThrough) {
    body = text;
  } else {
    body = JSON.stringify(CODECS[plan.protocol].inbound.encodeResponse({ ...ir, model: plan.model.id }, plan.streamOptions, plan.context));
  }
  if (plan.protocol === 'responses') await storeResponse(plan, ir, body, services);
  const { credits, headers } = await settleUsage(plan, ir.usage, services.usage, { upstreamAccountId: call.account.id, status: 'ok' });
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('x-request-cost-credits', String(credits));
  const warnings = warningHeader(plan.warnings);
  if (warnings) res.setHeader('x-gateway-warnings', warnings);
  reportWarnings(plan, deps);
  sendJsonText(res, 200, body);
  return { kind: 'done' };
}

export function reportWarnings(plan: RelayPlan, deps: Dependencies): void {
  for (const warning of plan.warnings) {
    deps.metrics.translationWarnings.inc({ from: plan.protocol, to: plan.model.nativeProtocols[0], field: warning.field.replace(/\[\d+\]/g, '[]') });
  }
  if (plan.warnings.length > 0) deps.logger.info({ requestId: plan.requestId, warnings: plan.warnings }, 'translation warnings');
}
