/** Writing whole (non-stream) answers, honouring the `cut` fault. */
import type { SimContext } from './context';
import type { SimHttpError } from '../sim-error';

export function sendJson(context: SimContext, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendBytes(context, status, 'application/json', Buffer.from(JSON.stringify(body), 'utf8'), headers);
}

/** Anthropic's error bodies carry the request id of the `request-id` header, as the real API's do. */
export function sendError(context: SimContext, error: SimHttpError): void {
  const requestId = context.defaultHeaders['request-id'];
  const body =
    context.family === 'anthropic' && requestId !== undefined && typeof error.body === 'object' && error.body !== null
      ? { ...error.body, request_id: requestId }
      : error.body;
  sendJson(context, error.status, body, error.headers);
}

export function sendBytes(
  context: SimContext,
  status: number,
  contentType: string,
  bytes: Buffer,
  headers: Record<string, string> = {},
): void {
  const { response } = context;
  if (response.headersSent || response.destroyed) return;
  context.log.status = status;
  response.writeHead(status, {
    ...context.defaultHeaders,
    ...headers,
    'content-type': contentType,
    'content-length': String(bytes.length),
  });
  if (status < 300 && context.controls.fault === 'cut') {
    // Half the body, then the socket goes: the client sees a truncated response.
    response.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
    cutConnection(context);
    return;
  }
  response.end(bytes);
}

export function cutConnection(context: SimContext): void {
  context.serverCut = true;
  const { response } = context;
  const socket = response.socket;
  if (socket === null) {
    response.destroy();
    return;
  }
  // Let the written bytes leave before the reset, so the client sees a partial answer: Node 26 holds a
  // response's writes (corked) until the next tick, so the socket is closed on the turn after, without
  // the final chunk.
  setImmediate(() => socket.end(() => socket.destroy()));
}
