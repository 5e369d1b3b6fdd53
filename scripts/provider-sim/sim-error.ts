/**
 * An answer that is not a success, already shaped in the envelope of the API family that gives it.
 * Handlers throw it; the server renders it. Three families share the protocols:
 * Messages → anthropic; Chat, Responses, Images → openai; Generate-Content, video → google.
 */
export type ErrorFamily = 'anthropic' | 'openai' | 'google';

export class SimHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(`simulated ${status}`);
  }
}

export function anthropicError(status: number, type: string, message: string): SimHttpError {
  return new SimHttpError(status, { type: 'error', error: { type, message } });
}

export interface OpenAIErrorFields {
  type?: string;
  param?: string | null;
  code?: string | null;
}

export function openaiError(status: number, message: string, fields: OpenAIErrorFields = {}): SimHttpError {
  return new SimHttpError(status, {
    error: { message, type: fields.type ?? 'invalid_request_error', param: fields.param ?? null, code: fields.code ?? null },
  });
}

export function googleError(status: number, message: string, statusText: string, details?: unknown[]): SimHttpError {
  const error: Record<string, unknown> = { code: status, message, status: statusText };
  if (details !== undefined) error.details = details;
  return new SimHttpError(status, { error });
}

/** Shorthands for the commonest rejection of each family: a 400 on a malformed request. */
export function anthropicInvalid(message: string): SimHttpError {
  return anthropicError(400, 'invalid_request_error', message);
}

export function openaiInvalid(message: string, param: string | null = null, code: string | null = null): SimHttpError {
  return openaiError(400, message, { param, code });
}

export function googleInvalid(message: string): SimHttpError {
  return googleError(400, message, 'INVALID_ARGUMENT');
}

/** The error a provider gives when it is rate limited, failing or overloaded (the fault modes). */
export function statusFaultError(family: ErrorFamily, status: 429 | 500 | 503 | 529): SimHttpError {
  const retry: Record<string, string> = status === 429 ? { 'retry-after': '1' } : {};
  const error = buildStatusFault(family, status);
  return new SimHttpError(status, error.body, { ...retry, ...error.headers });
}

function buildStatusFault(family: ErrorFamily, status: 429 | 500 | 503 | 529): SimHttpError {
  switch (family) {
    case 'anthropic':
      if (status === 429)
        return anthropicError(
          429,
          'rate_limit_error',
          'This request would exceed the rate limit for your organization of 50 requests per minute (simulated).',
        );
      if (status === 500) return anthropicError(500, 'api_error', 'Internal server error');
      return anthropicError(status, 'overloaded_error', 'Overloaded');
    case 'openai':
      if (status === 429)
        return openaiError(429, 'Rate limit reached for requests (simulated). Please try again in 1s.', {
          type: 'requests',
          code: 'rate_limit_exceeded',
        });
      if (status === 500)
        return openaiError(500, 'The server had an error while processing your request. Sorry about that!', { type: 'server_error' });
      return openaiError(status, 'The engine is currently overloaded, please try again later.', { type: 'server_error' });
    case 'google':
      if (status === 429) {
        // As ../shared/captures/generate-content/google-429-retry-info.json: which quota, and when to retry.
        return googleError(
          429,
          'You exceeded your current quota, please check your plan and billing details (simulated).',
          'RESOURCE_EXHAUSTED',
          [
            {
              '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
              violations: [{ quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' }],
            },
            { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' },
          ],
        );
      }
      if (status === 500)
        return googleError(
          500,
          'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
          'INTERNAL',
        );
      return googleError(status, 'The model is overloaded. Please try again later.', 'UNAVAILABLE');
  }
}
