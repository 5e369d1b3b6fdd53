/** A JSON answer with node's own response API, as express `res.json` writes it (content type with charset, length). */
import type { ServerResponse } from 'node:http';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendJsonText(res, status, JSON.stringify(body));
}

/** The same for a body that is already JSON text (a pass-through answer, an encoded response). */
export function sendJsonText(res: ServerResponse, status: number, text: string): void {
  res.statusCode = status;
  if (!res.hasHeader('content-type')) res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}
