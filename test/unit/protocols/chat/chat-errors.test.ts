/** Errors both ways: GatewayError → OpenAI envelope (checked with the SDK), provider error → GatewayError. */
import * as OpenAIModule from 'openai';
import { GatewayError, type ErrorKind } from '../../../../src/errors/gateway-error';
import { chatCodec } from '../../../../src/protocols/chat';
import { chatClient, jsonResponse } from '../../../support/sdk-chat';

const ENVELOPES: Array<[ErrorKind, number, string, string]> = [
  ['invalid_request', 400, 'invalid_request_error', 'invalid_request_error'],
  ['unsupported_model', 400, 'invalid_request_error', 'unsupported_model'],
  ['unsupported_feature', 400, 'invalid_request_error', 'unsupported_feature'],
  ['protocol_unavailable', 400, 'invalid_request_error', 'unsupported_protocol'],
  ['authentication', 401, 'authentication_error', 'invalid_api_key'],
  ['insufficient_balance', 402, 'insufficient_balance', 'insufficient_balance'],
  ['permission', 403, 'permission_error', 'permission_denied'],
  ['not_found', 404, 'not_found_error', 'not_found'],
  ['conflict', 409, 'invalid_request_error', 'conflict'],
  ['request_too_large', 413, 'invalid_request_error', 'request_too_large'],
  ['rate_limit', 429, 'rate_limit_error', 'rate_limit_exceeded'],
  ['concurrency_limit', 429, 'rate_limit_error', 'concurrency_limit'],
  ['upstream_error', 502, 'api_error', 'api_error'],
  ['no_available_account', 503, 'api_error', 'api_error'],
  ['overloaded', 503, 'api_error', 'api_error'],
  ['timeout', 502, 'api_error', 'api_error'],
  ['internal', 500, 'api_error', 'server_error'],
];

const SDK_CLASS: Record<number, string> = {
  400: 'BadRequestError',
  401: 'AuthenticationError',
  403: 'PermissionDeniedError',
  404: 'NotFoundError',
  409: 'ConflictError',
  413: 'APIError',
  402: 'APIError',
  429: 'RateLimitError',
  500: 'InternalServerError',
  502: 'InternalServerError',
  503: 'InternalServerError',
  504: 'InternalServerError',
  529: 'InternalServerError',
};

describe('encodeChatError', () => {
  it.each(ENVELOPES)('%s → HTTP %i, type %s, code %s, and the SDK reads it', async (kind, status, type, code) => {
    const rendered = chatCodec.inbound.encodeError(new GatewayError(kind, `failure: ${kind}`));
    expect(rendered).toEqual({ status, headers: {}, body: { error: { message: `failure: ${kind}`, type, param: null, code } } });
    const client = chatClient(() => jsonResponse(rendered.status, rendered.body, rendered.headers));
    const thrown: unknown = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(OpenAIModule.APIError);
    const error = thrown as OpenAIModule.APIError;
    expect(error.constructor.name).toBe(SDK_CLASS[status]);
    expect(error.status).toBe(status);
    expect(error.code).toBe(code);
    expect(error.type).toBe(type);
    expect(error.message).toBe(`${status} failure: ${kind}`);
  });

  it('keeps the status of an overloaded upstream (529), the param, extra headers and a retry-after', () => {
    const error = new GatewayError('overloaded', 'busy', { status: 529, retryAfterSeconds: 1.2, headers: { 'x-extra': '1' } });
    expect(chatCodec.inbound.encodeError(error)).toEqual({
      status: 529,
      headers: { 'x-extra': '1', 'retry-after': '2' },
      body: { error: { message: 'busy', type: 'api_error', param: null, code: 'api_error' } },
    });
    const invalid = chatCodec.inbound.encodeError(
      new GatewayError('invalid_request', 'messages[0].content: bad', { param: 'messages[0].content' }),
    );
    expect(invalid.body).toEqual({
      error: {
        message: 'messages[0].content: bad',
        type: 'invalid_request_error',
        param: 'messages[0].content',
        code: 'invalid_request_error',
      },
    });
  });
});

describe('decodeChatError', () => {
  const openaiBody = (message: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ error: { message, type: 'x', param: null, code: null, ...extra } });

  it.each<[string, number, string, Record<string, string | string[] | undefined>, Partial<GatewayError>]>([
    [
      'an OpenAI rate limit with retry-after-ms',
      429,
      openaiBody('Rate limit reached'),
      { 'retry-after-ms': '1500', 'retry-after': '9' },
      { kind: 'rate_limit', status: 429, message: 'Rate limit reached', retryAfterSeconds: 1.5 },
    ],
    [
      'retry-after in seconds, any header case, array values',
      429,
      openaiBody('slow down'),
      { 'Retry-After': ['7'] },
      { kind: 'rate_limit', retryAfterSeconds: 7 },
    ],
    [
      'a retry hint in the message',
      429,
      openaiBody('Limit reached. Please try again in 20s. Visit…'),
      {},
      { kind: 'rate_limit', retryAfterSeconds: 20 },
    ],
    ['a retry hint in milliseconds', 429, openaiBody('Please try again in 450ms.'), {}, { kind: 'rate_limit', retryAfterSeconds: 0.45 }],
    [
      'an invalid request keeps the provider param',
      400,
      openaiBody("Invalid 'messages[1].content'", { param: 'messages[1].content' }),
      {},
      { kind: 'invalid_request', status: 400, param: 'messages[1].content' },
    ],
    [
      'a 422 from a compat vendor',
      422,
      JSON.stringify({ object: 'error', message: 'Extra inputs are not permitted', type: 'invalid_request_error' }),
      {},
      { kind: 'invalid_request', status: 400, message: 'Extra inputs are not permitted' },
    ],
    [
      "our own bad upstream key is not the caller's fault",
      401,
      openaiBody('Incorrect API key provided'),
      {},
      { kind: 'upstream_error', status: 502 },
    ],
    ['a 503 stays 503', 503, openaiBody('overloaded'), {}, { kind: 'overloaded', status: 503 }],
    ['a 529 stays 529', 529, JSON.stringify({ error: 'Overloaded' }), {}, { kind: 'overloaded', status: 529, message: 'Overloaded' }],
    ['a 500 becomes an upstream error', 500, openaiBody('The server had an error'), {}, { kind: 'upstream_error', status: 502 }],
    ['a 504 is a timeout', 504, '', {}, { kind: 'timeout', status: 502, message: 'upstream answered HTTP 504' }],
    ['a FastAPI detail', 400, JSON.stringify({ detail: 'bad model' }), {}, { kind: 'invalid_request', message: 'bad model' }],
    ['an error array', 400, JSON.stringify([{ error: { message: 'first' } }]), {}, { message: 'first' }],
    [
      'an HTML page from a proxy',
      502,
      '<html><body>Bad gateway</body></html>',
      {},
      { kind: 'upstream_error', message: 'upstream answered HTTP 502' },
    ],
    ['plain text', 500, 'something broke', {}, { message: 'something broke' }],
  ])('%s', (_name, status, body, headers, expected) => {
    const error = chatCodec.upstream.decodeError(status, body, headers);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject(expected);
    expect(error.upstream).toEqual({ status, body });
  });

  it('leaves retryAfterSeconds unset when nothing says when to retry', () => {
    expect(
      chatCodec.upstream.decodeError(429, openaiBody('no hint'), { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }).retryAfterSeconds,
    ).toBeUndefined();
  });
});
