/**
 * Writing a streamed answer: headers at once, the first frame after the time-to-first-token, then
 * one frame per chunk delay. Faults: `cut` closes the connection after half the frames with no
 * terminal event; `error-event` sends the protocol's own error frame(s) after half the frames.
 */
import { sleep } from './sleep';
import { cutConnection } from './send';
import type { SimContext } from './context';

export interface StreamPlan {
  contentType: string;
  frames: string[];
  /** The frames that end the stream with an error after `emitted` frames (`error-event` fault). */
  errorFrames: (emitted: number) => string[];
  headers?: Record<string, string>;
}

export async function sendStream(context: SimContext, plan: StreamPlan): Promise<void> {
  const { response, controls } = context;
  if (response.headersSent || response.destroyed) return;
  context.log.status = 200;
  response.writeHead(200, {
    ...context.defaultHeaders,
    ...plan.headers,
    'content-type': plan.contentType,
    'cache-control': 'no-cache',
  });
  response.flushHeaders();

  let frames = plan.frames;
  let ending: string[] = [];
  const fault = controls.fault;
  if (fault === 'cut' || fault === 'error-event') {
    const emitted = Math.max(1, Math.floor(frames.length / 2));
    frames = frames.slice(0, emitted);
    if (fault === 'error-event') ending = plan.errorFrames(emitted);
  }
  const all = frames.concat(ending);

  if (!(await sleep(controls.ttftMs, context.state.closing)) || isGone(context)) return;
  if (controls.chunkDelayMs <= 0) {
    if (all.length > 0) response.write(all.join(''));
  } else {
    for (let index = 0; index < all.length; index++) {
      if (index > 0 && !(await sleep(controls.chunkDelayMs, context.state.closing))) return;
      if (isGone(context)) return;
      response.write(all[index]);
    }
  }
  if (fault === 'cut') cutConnection(context);
  else response.end();
}

function isGone(context: SimContext): boolean {
  return context.response.destroyed || context.response.writableEnded;
}

export function sseFrame(data: unknown, event?: string): string {
  const json = JSON.stringify(data);
  return event === undefined ? `data: ${json}\n\n` : `event: ${event}\ndata: ${json}\n\n`;
}
