/**
 * The Responses WebSocket transport's wire (issue 25, as Codex speaks it): the client sends
 * `response.create` text frames (the body of a `POST /v1/responses`, plus `generate: false` for a
 * warm-up and `client_metadata`) and `response.processed` acknowledgements; the server answers with
 * the Responses stream events as text frames, and an `error` event carrying the HTTP status and the
 * error envelope instead of an HTTP error.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ZERO_USAGE } from '../../ir/usage';
import type { CodecContext } from '../codec';
import { isRecord, parseJson } from '../shared/read-json';
import { toResponsesUsage } from './convert-usage';
import { buildResponseObject } from './response-object';

/** Fields only the WebSocket transport defines: never part of the body served as a POST. */
const TRANSPORT_FIELDS = ['type', 'generate', 'client_metadata'];

export const WEBSOCKET_UPGRADE_HINT =
  'GET /v1/responses is the Responses WebSocket transport: send it with Upgrade: websocket ' +
  '(and Authorization: Bearer <key>), or POST /v1/responses over HTTP';

export type ClientMessage =
  { kind: 'create'; body: Record<string, unknown>; generate: boolean } | { kind: 'acknowledgement' } | { kind: 'invalid'; message: string };

export function readClientMessage(text: string): ClientMessage {
  const parsed = parseJson(text);
  if (!isRecord(parsed))
    return { kind: 'invalid', message: 'a WebSocket message must be a JSON object such as {"type":"response.create", ...}' };
  if (parsed.type === 'response.processed') return { kind: 'acknowledgement' };
  if (parsed.type !== 'response.create') {
    return { kind: 'invalid', message: `unknown message type ${JSON.stringify(parsed.type ?? null)}: send "response.create"` };
  }
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(parsed)) if (!TRANSPORT_FIELDS.includes(name)) body[name] = value;
  // Every answer on this transport is the event stream.
  body.stream = true;
  return { kind: 'create', body, generate: parsed.generate !== false };
}

/** Headers of the upgrade that belong to the WebSocket itself, never to a response served on it. */
const SOCKET_HEADERS = [
  'upgrade',
  'connection',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
  'sec-websocket-protocol',
];

/**
 * The headers each response of the socket is served with: the upgrade's, without the WebSocket's
 * own and without the `responses_websockets` beta (an HTTP upstream call is not a WebSocket).
 */
export function turnHeaders(upgrade: IncomingHttpHeaders): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(upgrade)) if (!SOCKET_HEADERS.includes(name)) headers[name] = value;
  const beta =
    typeof headers['openai-beta'] === 'string'
      ? headers['openai-beta']
          .split(',')
          .map((token) => token.trim())
          .filter((token) => token !== '' && !token.startsWith('responses_websockets'))
      : undefined;
  if (beta !== undefined) {
    if (beta.length > 0) headers['openai-beta'] = beta.join(', ');
    else delete headers['openai-beta'];
  }
  return headers;
}

/** The input of a body as an item list (the string form is one user message). */
export function inputItems(body: Record<string, unknown>): unknown[] {
  if (Array.isArray(body.input)) return body.input;
  if (typeof body.input === 'string') return [{ type: 'message', role: 'user', content: body.input }];
  return [];
}

/** An error on the socket: the status and the envelope a POST would have answered. */
export function errorEvent(status: number, envelope: unknown): string {
  const error = isRecord(envelope) && isRecord(envelope.error) ? envelope.error : { type: 'api_error', message: String(envelope) };
  return JSON.stringify({ type: 'error', status, error });
}

/** A warm-up (`generate: false`): a response with no output and no usage, from no model call. */
export function warmUpEvents(model: unknown, context: CodecContext): { id: string; frames: string[] } {
  const id = context.newId('resp_');
  const fields = { id, createdAt: context.now(), model: typeof model === 'string' ? model : '', output: [] };
  const created = buildResponseObject({ ...fields, status: 'in_progress', usage: null });
  const completed = buildResponseObject({ ...fields, status: 'completed', usage: toResponsesUsage(ZERO_USAGE) });
  return {
    id,
    frames: [
      JSON.stringify({ type: 'response.created', sequence_number: 0, response: created }),
      JSON.stringify({ type: 'response.completed', sequence_number: 1, response: completed }),
    ],
  };
}

/** The id and output items of a terminal `response.completed` event; undefined for any other frame. */
export function completedResponse(frame: string): { id: string; output: unknown[] } | undefined {
  if (!frame.includes('"response.completed"')) return undefined;
  const event = parseJson(frame);
  if (!isRecord(event) || event.type !== 'response.completed' || !isRecord(event.response)) return undefined;
  const { id, output } = event.response;
  return typeof id === 'string' ? { id, output: Array.isArray(output) ? output : [] } : undefined;
}
