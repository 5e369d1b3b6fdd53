/**
 * Where a streamed answer's frames come from, and what billing reads from it. Translated: upstream
 * bytes → the upstream codec's stream decoder → IR events → the client protocol's stream encoder.
 * Pass-through: the upstream's bytes go on as they are and the protocol's light meter reads usage,
 * finish and error frames from them (no decoder, no schema validation per frame).
 */
import { GatewayError } from '../errors/gateway-error';
import type { FinishReason } from '../ir/finish-reason';
import type { IrResponse } from '../ir/response';
import type { IrStreamEvent } from '../ir/stream-event';
import type { Usage } from '../ir/usage';
import { UsageTally } from '../ir/usage-tally';
import { SseParser } from '../protocols/shared/sse-parser';
import { CODECS } from './codec-registry';
import { collectParts } from './collect-parts';
import type { RelayPlan } from './relay-plan';
import type { PreparedUpstreamCall } from './upstream-request';
import { observeUsage } from './observe-usage';

/** What one upstream chunk (or the stream's end) gives: text for the client, and the upstream's error if it sent one. */
export interface Pushed {
  out: string;
  error?: GatewayError;
}

export interface StreamSource {
  /** Pass-through: the client receives the upstream's own frames (its error frame included). */
  readonly passThrough: boolean;
  push(chunk: string): Pushed;
  /** The upstream ended its stream; an error when it ended before its final event. */
  end(): Pushed;
  /** After a successful end: the protocol's closing frames. */
  close(): string;
  /** A failure after the first byte: the protocol's error frame (never a new stream start). */
  failFrames(error: GatewayError): string;
  usage(): Usage;
  untilAbort(): Usage;
  /** Translated Responses answers: the answer as IR, to be stored before the closing frames. */
  answer?(): IrResponse;
}

export function createStreamSource(plan: RelayPlan, call: PreparedUpstreamCall): StreamSource {
  return call.passThrough ? passThroughSource(plan, call) : translatedSource(plan, call);
}

function translatedSource(plan: RelayPlan, call: PreparedUpstreamCall): StreamSource {
  const decoder = CODECS[call.account.protocol].upstream.createStreamDecoder(call.decodeContext);
  const encoder = CODECS[plan.protocol].inbound.createStreamEncoder(plan.streamOptions, plan.context);
  const tally = new UsageTally();
  const parts = plan.protocol === 'responses' ? collectParts() : undefined;
  let finish: FinishReason | null = null;
  const handle = (events: IrStreamEvent[]): Pushed => {
    let out = '';
    for (const event of events) {
      observeUsage(tally, event);
      parts?.observe(event);
      if (event.type === 'finish') finish = event.finish;
      if (event.type === 'error') return { out, error: event.error };
      for (const frame of encoder.push(event)) out += frame;
    }
    return { out };
  };
  return {
    passThrough: false,
    push: (chunk) => handle(decoder.push(chunk)),
    end: () => handle(decoder.end()),
    close: () => encoder.end().join(''),
    failFrames: (error) => encoder.fail(error).join(''),
    usage: () => tally.final(),
    untilAbort: () => tally.untilAbort(plan.inputEstimate),
    ...(parts ? {
      answer: (): IrResponse => ({ id: plan.streamOptions.responseId ?? '', model: plan.model.id, parts: parts.result(), finish: finish ?? { unified: 'stop', raw: null }, usage: tally.final() }),
    } : {}),
  };
}

function passThroughSource(plan: RelayPlan, call: PreparedUpstreamCall): StreamSource {
  const meter = CODECS[plan.protocol].createPassThroughMeter(true);
  const filter = plan.protocol === 'chat' && !plan.request.includeUsage ? createChatUsageFilter() : undefined;
  let reported = false;
  let ended: ReturnType<typeof meter.end> | undefined;
  return {
    passThrough: true,
    push(chunk) {
      meter.push(chunk);
      const out = filter ? filter(chunk) : chunk;
      if (reported || !meter.failed()) return { out };
      reported = true;
      return { out, error: upstreamStreamError(call, chunk) };
    },
    end() {
      ended = meter.end();
      const out = filter ? filter('') : '';
      if (!ended.error || reported) return { out };
      return { out, error: new GatewayError('upstream_error', 'the upstream stream ended before its final event') };
    },
    close: () => '',
    failFrames: (error) => passThroughErrorFrame(plan, error),
    usage: () => (ended ??= meter.end()).usage,
    untilAbort: () => meter.untilAbort(plan.inputEstimate),
  };
}

/**
 * The error an upstream stream reported in this chunk, as the protocol's decoder reads it (the rare
 * path: a decoder is made only here, for the chunk that carried the error frame).
 */
function upstreamStreamError(call: PreparedUpstreamCall, chunk: string): GatewayError {
  const decoder = CODECS[call.account.protocol].upstream.createStreamDecoder(call.decodeContext);
  const events = [...decoder.push(chunk), ...decoder.end()];
  const error = events.find((event): event is Extract<IrStreamEvent, { type: 'error' }> => event.type === 'error');
  return error?.error ?? new GatewayError('upstream_error', 'the upstream failed mid-stream');
}

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
