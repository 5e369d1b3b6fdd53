/** A Messages provider's error answer (HTTP error body or mid-stream `event: error`) → GatewayError. */
import { GatewayError, kindForUpstreamStatus, type ContextOverflow, type ErrorKind } from '../../errors/gateway-error';
import { isRecord, parseJson, readRecord, readString } from '../shared/read-json';
import { retryAfterSeconds, type HeaderBag } from '../shared/retry-after';

/** Error `type` of a Messages envelope → our kind, for frames that carry no HTTP status (mid-stream). */
const KIND_FOR_TYPE: Record<string, ErrorKind> = {
  invalid_request_error: 'invalid_request',
  request_too_large: 'request_too_large',
  rate_limit_error: 'rate_limit',
  overloaded_error: 'overloaded',
  timeout_error: 'timeout',
  api_error: 'upstream_error',
  // Our upstream account's credential or entitlement failed: not the caller's fault.
  authentication_error: 'upstream_error',
  permission_error: 'upstream_error',
  billing_error: 'upstream_error',
  not_found_error: 'upstream_error',
};

function readEnvelope(payload: unknown): { type?: string; message?: string } {
  if (!isRecord(payload)) return {};
  const error = readRecord(payload, 'error');
  if (!error) return { message: readString(payload, 'message') };
  return { type: readString(error, 'type'), message: readString(error, 'message') };
}

const PROMPT_TOO_LONG = /prompt is too long(?:: (\d+) tokens > (\d+) maximum)?/i;

/** Anthropic's overflow refusal, "prompt is too long: 208310 tokens > 200000 maximum". */
export function messagesContextOverflow(message: string | undefined): ContextOverflow | undefined {
  const match = message === undefined ? null : PROMPT_TOO_LONG.exec(message);
  if (!match) return undefined;
  return match[1] === undefined ? {} : { inputTokens: Number(match[1]), maxTokens: Number(match[2]) };
}

export function decodeMessagesError(status: number, body: string, headers: HeaderBag): GatewayError {
  const envelope = readEnvelope(parseJson(body));
  const contextOverflow = status < 500 ? messagesContextOverflow(envelope.message) : undefined;
  if (contextOverflow) return new GatewayError('invalid_request', envelope.message!, { contextOverflow, upstream: { status, body } });
  let kind = kindForUpstreamStatus(status);
  if (envelope.type === 'overloaded_error') kind = 'overloaded';
  let message = envelope.message ?? (body.trim() !== '' ? body.trim().slice(0, 500) : `upstream answered HTTP ${status}`);
  if (status === 401 || status === 403) {
    // The upstream rejected our own account: its wording ("invalid x-api-key") would mislead the caller.
    message = `the upstream account was rejected (HTTP ${status})`;
  }
  return new GatewayError(kind, message, {
    status: kind === 'overloaded' ? (status === 503 || status === 529 ? status : 529) : undefined,
    retryAfterSeconds: retryAfterSeconds(headers),
    upstream: { status, body },
  });
}

/** An `event: error` frame after the stream started (HTTP status was already 200). */
export function decodeMessagesStreamError(payload: unknown): GatewayError {
  const envelope = readEnvelope(payload);
  const kind = (envelope.type !== undefined ? KIND_FOR_TYPE[envelope.type] : undefined) ?? 'upstream_error';
  return new GatewayError(kind, envelope.message ?? 'the upstream stream reported an error', {
    status: kind === 'overloaded' ? 529 : undefined,
    upstream: { status: 200, body: JSON.stringify(payload) },
  });
}
