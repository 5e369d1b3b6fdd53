/** Frames and route facts several protocols share. */
import type { RouteFacts } from '../codec';

/** An SSE comment: what a silent event stream sends to keep the connection open. */
export const SSE_KEEPALIVE = ': keepalive\n\n';

/** Route facts of a request whose stream (if any) is SSE-framed by its protocol, or not. */
export const SSE_ROUTE: RouteFacts = Object.freeze({ sse: true });
export const PLAIN_ROUTE: RouteFacts = Object.freeze({ sse: false });

/** A JSON frame as `data:` of an SSE event without an event name. */
export function sseDataFrame(body: unknown): string {
  return `data: ${JSON.stringify(body)}\n\n`;
}
