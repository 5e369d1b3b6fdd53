/**
 * OpenAI refuses an over-long prompt of a streamed Responses request inside the stream (200,
 * `response.created`, `error`, `response.failed` with `context_length_exceeded`), not with a 400:
 * Codex classifies only that form as a full context window (and compacts), a 400 as an invalid request.
 */
import type { GatewayError } from '../../errors/gateway-error';
import type { CodecContext, InboundStreamOptions } from '../codec';
import { ResponsesStreamEncoder } from './stream-encoder';

export function responsesStreamedRefusal(error: GatewayError, options: InboundStreamOptions, context: CodecContext): string | undefined {
  if (!error.contextOverflow) return undefined;
  return new ResponsesStreamEncoder(options, context).refuse(error).join('');
}
