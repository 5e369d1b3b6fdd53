/**
 * The one builder of OpenAI's error envelope `{error: {message, type, param, code}}`, for the
 * gateway's own surfaces and for the Chat and Responses codecs. A codec passes only what its
 * protocol words differently (its dialect); the envelope's shape is written here once.
 */
import { errorHeaders } from '../../errors/error-headers';
import type { ContextOverflow, ErrorKind, GatewayError } from '../../errors/gateway-error';
import type { RenderedError } from '../codec';
import { OPENAI_TYPE_AND_CODE } from './openai-error-type';

export interface OpenAiStyleErrorFields {
  message: string;
  type: string;
  param: string | null;
  code: string;
}

/** What one protocol says differently from the shared table. */
export interface OpenAiStyleErrorDialect {
  /** Codes this protocol names differently (Responses: an unknown model is `model_not_found`). */
  codes?: Partial<Record<ErrorKind, string>>;
  /**
   * The protocol's own wording for a prompt over the context window, sent with the code
   * `context_length_exceeded`. Without it, an overflow is rendered as any other error of its kind.
   */
  contextOverflow?: (overflow: ContextOverflow) => { message: string; param: string };
}

export function openAiStyleErrorFields(error: GatewayError, dialect: OpenAiStyleErrorDialect = {}): OpenAiStyleErrorFields {
  if (error.contextOverflow && dialect.contextOverflow) {
    const { message, param } = dialect.contextOverflow(error.contextOverflow);
    return { message, type: 'invalid_request_error', param, code: 'context_length_exceeded' };
  }
  const { type, code } = OPENAI_TYPE_AND_CODE[error.kind];
  return { message: error.message, type, param: error.param ?? null, code: dialect.codes?.[error.kind] ?? code };
}

/** The whole answer: the error's own status, the envelope, and the error's headers (Retry-After). */
export function renderOpenAiStyleError(error: GatewayError, dialect: OpenAiStyleErrorDialect = {}): RenderedError {
  return { status: error.status, body: { error: openAiStyleErrorFields(error, dialect) }, headers: errorHeaders(error) };
}
