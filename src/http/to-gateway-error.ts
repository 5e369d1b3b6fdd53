/** Anything thrown → a GatewayError; unknown errors become a generic 500 without internals. */
import { GatewayError, isGatewayError } from '../errors/gateway-error';

interface BodyParserError { type?: string; status?: number; expose?: boolean }

export function toGatewayError(error: unknown): GatewayError {
  if (isGatewayError(error)) return error;
  const parserError = error as BodyParserError;
  if (parserError?.type === 'entity.too.large') return new GatewayError('request_too_large', 'request body too large');
  if (parserError?.type === 'entity.parse.failed') return new GatewayError('invalid_request', 'request body is not valid JSON');
  if (parserError?.type === 'encoding.unsupported' || parserError?.type === 'charset.unsupported') {
    return new GatewayError('invalid_request', 'unsupported request body encoding');
  }
  if (parserError?.status === 400 && parserError.expose) return new GatewayError('invalid_request', 'malformed request body');
  return new GatewayError('internal', 'internal error', { cause: error });
}
