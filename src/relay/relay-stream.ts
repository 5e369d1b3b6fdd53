/**
 * A streamed answer. Translation: upstream bytes → stream decoder → IR events → the client
 * protocol's stream encoder → frames. Pass-through: upstream bytes go to the client unchanged while
 * the same decoder meters them. Headers are committed with the first frame, so a failure before it
 * can still fail over; after it, failures become the protocol's error frame. The client leaving
 * aborts the upstream at once and bills the usage produced until then; a key revoked or deleted
 * mid-stream cuts the stream with the authentication error frame (free).
 */
import type { ServerResponse } from 'node:http';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import type { IrResponse } from '../ir/response';
import type { FinishReason } from '../ir/finish-reason';
import type { IrStreamEvent } from '../ir/stream-event';
import { SseParser } from '../protocols/shared/sse-parser';
import { toUpstreamError, type UpstreamResponse } from '../upstream/upstream-client';
import { RELEASE, type AttemptOutcome } from './attempt-outcome';
import { relayCharge } from './call-charge';
import { CODECS } from './codec-registry';
import { collectParts } from './collect-parts';
import { keyInvalidatedError } from './key-invalidated-error';
import type { RelayPlan } from './relay-plan';
import type { RelayServices } from './relay-services';
import { reportWarnings } from './report-warnings';
import { storeResponse } from './store-response';
import type { PreparedUpstreamCall } from './upstream-request';
import { UsageTracker } from './usage-tracker';
import { warningHeader } from './warning-header';
import { writeWithBackpressure } from './write-with-backpressure';

/** Chat pass-through when the client did not ask for usage: drop the usage-only chunk we requested. */
function createChatUsageFilter(): (chunk: string) => string {
  const parser = new SseParser();
  return (chunk) => {
    let out = '';
    for (const event of parser.push(chunk)) {
      if (event.data !== '[DONE]' && event.data.includes('"usage"')) {
        try {
          const parsed = JSON.parse(event.data) as { choices?: unknown[]; usage?: unknown };
          if (Array.isArray(parsed.choices) && parsed.choices.length === 0 && parsed.usage) continue;
        } catch { /* not JSON: pass it on */ }
      }
      out += `data: ${event.data}\n\n`;
    }
    return out;
  };
}

export async function relayStream(plan: RelayPlan, call: PreparedUpstreamCall, response: UpstreamResponse, res: ServerResponse,
  abort: AbortController, isKeyInvalidated: () => boolean, deps: Dependencies, services: RelayServices): Promise<AttemptOutcome> {
  const upstreamCodec = CODECS[call.account.protocol];
  const decoder = upstreamCodec.upstream.createStreamDecoder(call.decodeContext);
  const encoder = call.passThrough ? undefined : CODECS[plan.protocol].inbound.createStreamEncoder(plan.streamOptions, plan.context);
  const filter = call.passThrough && plan.protocol === 'chat' && !plan.request.includeUsage ? createChatUsageFilter() : undefined;
  const tracker = new UsageTracker(plan.inputEstimate);
  const parts = plan.protocol === 'responses' ? collectParts() : undefined;
  let committed = false;
  let lastWrite = Date.now();
  let finish: FinishReason | null = null;
  let failure: GatewayError | undefined;
  /** Pass-through: the upstream's own error frame already reached the client. */
  let upstreamSentErrorFrame = false;

  const commit = () => {
    if (committed) return;
    committed = true;
    const headers: Record<string, string> = {
      'content-type': CODECS[plan.protocol].inbound.streamContentType(plan.streamOptions),
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      ...plan.admitted.headers(),
    };
    const warnings = warningHeader(plan.warnings);
    if (warnings) headers['x-gateway-warnings'] = warnings;
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    // No flushHeaders(): the frame written right after goes out in the same packet as the headers,
    // one wake-up of the client instead of two before its first byte.
    res.statusCode = 200;
  };
  const write = async (data: string): Promise<boolean> => {
    if (data === '') return true;
    commit();
    lastWrite = Date.now();
    return writeWithBackpressure(res, data);
  };

  const keepalive = setInterval(() => {
    if (!committed || res.writableEnded || Date.now() - lastWrite < deps.config.streamKeepaliveMs) return;
    lastWrite = Date.now();
    res.write(plan.protocol === 'generate-content' && !plan.streamOptions.sse ? '\n' : ': keepalive\n\n');
  }, Math.max(250, Math.floor(deps.config.streamKeepaliveMs / 2)));
  const heartbeat = setInterval(() => { void plan.admitted.heartbeat().catch(() => undefined); }, Math.max(1_000, Math.floor(deps.config.leaseTtlMs / 3)));

  const handle = async (events: IrStreamEvent[]): Promise<boolean> => {
    for (const event of events) {
      tracker.observe(event);
      parts?.observe(event);
      if (event.type === 'finish') finish = event.finish;
      if (event.type === 'error') {
        failure = event.error;
        return false;
      }
      if (encoder) {
        const frames = encoder.push(event);
        for (const frame of frames) if (!(await write(frame))) return false;
      }
    }
    return true;
  };

  try {
    response.body.setEncoding('utf8');
    try {
      for await (const chunk of response.body as AsyncIterable<string>) {
        const events = decoder.push(chunk);
        if (call.passThrough) {
          // Before the first byte, an upstream error event still allows failover.
          if (!committed && events.some((e) => e.type === 'error')) {
            failure = events.find((e): e is Extract<IrStreamEvent, { type: 'error' }> => e.type === 'error')!.error;
            break;
          }
          // After the first byte the upstream's bytes go out as they are, its own error frame included.
          if (!(await write(filter ? filter(chunk) : chunk))) break;
          if (!(await handle(events))) {
            upstreamSentErrorFrame = failure !== undefined;
            break;
          }
        } else if (!(await handle(events))) {
          break;
        }
      }
      if (!failure && !abort.signal.aborted && !res.destroyed) {
        const events = decoder.end();
        if (await handle(events)) {
          if (filter) await write(filter(''));
        }
      }
    } catch (error) {
      if (!abort.signal.aborted) failure = toUpstreamError(error);
    }

    // The key was revoked or deleted on some API process: cut with the authentication error frame.
    if (isKeyInvalidated()) {
      const error = keyInvalidatedError();
      if (committed && !res.writableEnded) {
        const frames = encoder ? encoder.fail(error) : CODECS[plan.protocol].inbound.createStreamEncoder(plan.streamOptions, plan.context).fail(error);
        for (const frame of frames) res.write(frame);
        res.end();
      } else if (!committed) {
        throw error;
      }
      return RELEASE;
    }
    // The client went away: the upstream is already aborted; bill what was produced.
    if (abort.signal.aborted || res.destroyed) {
      if (!committed) return RELEASE;
      return { kind: 'end', ending: { kind: 'settle', charge: relayCharge(plan, tracker.untilAbort(), call.account.id, 'aborted') } };
    }
    if (failure) {
      if (!committed) return { kind: 'retry', error: failure };
      // After the first byte: the protocol's error frame, and the call is free.
      if (encoder) {
        for (const frame of encoder.fail(failure)) await write(frame);
      } else if (!upstreamSentErrorFrame) {
        // Pass-through cut without an error frame: one bare frame of the protocol, never a new stream start.
        await write(passThroughErrorFrame(plan, failure));
      }
      res.end();
      deps.logger.warn({ requestId: plan.requestId, err: failure.message }, 'stream failed after the first byte');
      return RELEASE;
    }
    // A streamed Responses answer is stored before its terminal event reaches the client, so a
    // previous_response_id sent right after it always finds it.
    if (parts) {
      const ir: IrResponse = { id: plan.streamOptions.responseId ?? '', model: plan.model.id, parts: parts.result(), finish: finish ?? { unified: 'stop', raw: null }, usage: tracker.final() };
      await storeResponse(plan, ir, JSON.stringify({ id: plan.streamOptions.responseId }), services).catch((error: unknown) => {
        deps.logger.error({ requestId: plan.requestId, err: error }, 'could not store the response');
      });
    }
    if (encoder) for (const frame of encoder.end()) await write(frame);
    commit();
    res.end();
    reportWarnings(plan, deps);
    return { kind: 'end', ending: { kind: 'settle', charge: relayCharge(plan, tracker.final(), call.account.id, 'ok') } };
  } finally {
    clearInterval(keepalive);
    clearInterval(heartbeat);
  }
}

/** The protocol's bare error frame for a pass-through stream the upstream cut without one. */
function passThroughErrorFrame(plan: RelayPlan, error: GatewayError): string {
  const body = CODECS[plan.protocol].inbound.encodeError(error).body;
  switch (plan.protocol) {
    case 'messages': return `event: error\ndata: ${JSON.stringify(body)}\n\n`;
    case 'responses': {
      const inner = (body.error ?? {}) as Record<string, unknown>;
      return `event: error\ndata: ${JSON.stringify({ type: 'error', code: inner.code ?? null, message: inner.message ?? error.message, param: inner.param ?? null })}\n\n`;
    }
    case 'chat': return `data: ${JSON.stringify(body)}\n\n`;
    case 'generate-content': return plan.streamOptions.sse ? `data: ${JSON.stringify(body)}\n\n` : `,${JSON.stringify(body)}]`;
  }
}

