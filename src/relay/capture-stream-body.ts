/**
 * A streamed answer kept for the request log (issue 22, only for accounts that keep bodies): the
 * frames the client received are gathered (up to a cap), then assembled into the answer the
 * protocol would have given unstreamed: the client's own stream decoded back to the IR and encoded
 * whole. An answer that cannot be assembled (cut, over the cap) is kept as its frames.
 */
import type { IrResponse } from '../ir/response';
import { ZERO_USAGE } from '../ir/usage';
import { CODECS } from './codec-registry';
import { collectParts } from './collect-parts';
import type { RelayPlan } from './relay-plan';

export interface StreamCapture {
  add(frames: string): void;
  /** The assembled answer (or the frames), and how many events carried it. */
  finish(): { body: string; events: number };
}

export function captureStreamBody(plan: RelayPlan, maxChars: number): StreamCapture {
  const chunks: string[] = [];
  let size = 0;
  let cut = false;
  return {
    add(frames) {
      if (cut) return;
      if (size + frames.length > maxChars) cut = true;
      else {
        chunks.push(frames);
        size += frames.length;
      }
    },
    finish() {
      const text = chunks.join('');
      const frames = text.match(/^data:/gm)?.length ?? 0;
      if (cut) return { body: text, events: frames };
      try {
        const decoder = CODECS[plan.protocol].upstream.createStreamDecoder({ ...plan.context, toolNames: {} });
        const events = [...decoder.push(text), ...decoder.end()];
        const parts = collectParts();
        const response: IrResponse = {
          id: '',
          model: plan.model.id,
          parts: [],
          finish: { unified: 'other', raw: null },
          usage: ZERO_USAGE,
        };
        for (const event of events) {
          parts.observe(event);
          if (event.type === 'start') response.id = event.id;
          else if (event.type === 'usage') response.usage = event.usage;
          else if (event.type === 'finish') response.finish = event.finish;
          else if (event.type === 'error') return { body: text, events: frames || events.length };
        }
        response.parts = parts.result();
        const whole = CODECS[plan.protocol].inbound.encodeResponse(response, plan.streamOptions, plan.context);
        return { body: JSON.stringify(whole), events: frames || events.length };
      } catch {
        return { body: text, events: frames };
      }
    },
  };
}
