/**
 * A refusal the caller's protocol delivers inside a stream (the codec's `streamedRefusal`:
 * Responses streams a context overflow as OpenAI does): 200, the protocol's frames, the end. The
 * call is free; its caller has noted the failure, so the request log records the refusal's class.
 */
import type { ServerResponse } from 'node:http';
import type { GatewayError } from '../errors/gateway-error';
import { locals } from '../http/request-context';
import { CODECS } from './codec-registry';
import type { RelayPlan } from './relay-plan';
import { setStreamHeaders } from './stream-headers';

/** Writes the refusal as a stream when the request was streamed and its protocol says so; false: it is to be thrown. */
export function refuseInStream(plan: RelayPlan, res: ServerResponse, error: GatewayError): boolean {
  if (!plan.stream || res.headersSent) return false;
  const inbound = CODECS[plan.protocol].inbound;
  const frames = inbound.streamedRefusal?.(error, plan.streamOptions, plan.context);
  if (frames === undefined) return false;
  setStreamHeaders(plan, res);
  const facts = locals(res).facts;
  if (facts?.keepBodies) facts.responseBody = frames;
  res.statusCode = 200;
  res.end(frames);
  return true;
}
