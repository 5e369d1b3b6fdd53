/** A provider's error answer (status, body, headers) → GatewayError with its message and retry hints. */
import { GatewayError, kindForUpstreamStatus } from '../../errors/gateway-error';
import { chatErrorBodySchema } from './chat-upstream-schema';
import { retryAfterSeconds, type HeaderBag } from '../shared/retry-after';
import { parseJson } from '../shared/read-json';
import { openAiContextOverflow } from '../shared/openai-context-overflow';

const MAX_MESSAGE = 500;

interface ErrorDetails {
  message?: string;
  param?: string;
  code?: string;
}

/** Reads `{error:{message,param}}`, `{error:"…"}`, `{message}` (mistral, vLLM) and `{detail}` (FastAPI servers). */
export function readChatErrorDetails(parsed: unknown): ErrorDetails {
  const candidate = Array.isArray(parsed) ? parsed[0] : parsed;
  const result = chatErrorBodySchema.safeParse(candidate);
  if (!result.success) return {};
  const body = result.data;
  if (typeof body.error === 'string') return { message: body.error };
  if (body.error) {
    const code = typeof body.error.code === 'string' ? body.error.code : undefined;
    return { message: body.error.message ?? undefined, param: body.error.param ?? undefined, code };
  }
  if (body.message) return { message: body.message };
  if (typeof body.detail === 'string') return { message: body.detail };
  if (body.detail !== undefined) return { message: JSON.stringify(body.detail).slice(0, MAX_MESSAGE) };
  return {};
}

export function decodeChatError(status: number, body: string, headers: HeaderBag): GatewayError {
  const details = readChatErrorDetails(parseJson(body));
  const text = body.trim();
  const message =
    details.message ?? (text !== '' && !text.startsWith('<') ? text.slice(0, MAX_MESSAGE) : `upstream answered HTTP ${status}`);
  const contextOverflow = status < 500 ? openAiContextOverflow(message, details.code) : undefined;
  if (contextOverflow)
    return new GatewayError('invalid_request', message, { param: details.param, contextOverflow, upstream: { status, body } });
  const kind = kindForUpstreamStatus(status);
  return new GatewayError(kind, message, {
    // Overloaded keeps the provider's 503/529; every other kind takes its own status.
    status: kind === 'overloaded' ? status : undefined,
    param: kind === 'invalid_request' ? details.param : undefined,
    retryAfterSeconds: retryAfterSeconds(headers, message),
    upstream: { status, body },
  });
}
