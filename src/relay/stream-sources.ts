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
  // An answer stored for chaining (Responses) is collected as it streams.
  const parts = plan.streamOptions.responseId !== undefined ? collectParts() : undefined;
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
    ...(parts
      ? {
          answer: (): IrResponse => ({
            id: plan.streamOptions.responseId ?? '',
            model: plan.model.id,
            parts: parts.result(),
            finish: finish ?? { unified: 'stop', raw: null },
            usage: tally.final(),
          }),
        }
      : {}),
  };
}

function passThroughSource(plan: RelayPlan, call: PreparedUpstreamCall): StreamSource {
  const codec = CODECS[plan.protocol];
  const meter = codec.createPassThroughMeter(true);
  const filter = codec.passThroughStreamFilter?.(plan.request);
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
    failFrames: (error) => codec.inbound.passThroughErrorFrame(error, plan.streamOptions),
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
