import { GatewayError, type ErrorKind } from '../../../../src/errors/gateway-error';
import { decodeGenerateContentError } from '../../../../src/protocols/generate-content/decode-generate-content-error';
import { encodeGenerateContentError } from '../../../../src/protocols/generate-content/encode-generate-content-error';

describe('encodeGenerateContentError', () => {
  const TABLE: Array<[ErrorKind, number, string, number | undefined]> = [
    ['invalid_request', 400, 'INVALID_ARGUMENT', undefined],
    ['unsupported_model', 404, 'NOT_FOUND', undefined],
    ['unsupported_feature', 400, 'INVALID_ARGUMENT', undefined],
    ['protocol_unavailable', 400, 'INVALID_ARGUMENT', undefined],
    ['authentication', 401, 'UNAUTHENTICATED', undefined],
    ['insufficient_balance', 402, 'RESOURCE_EXHAUSTED', undefined],
    ['permission', 403, 'PERMISSION_DENIED', undefined],
    ['not_found', 404, 'NOT_FOUND', undefined],
    ['conflict', 409, 'ABORTED', undefined],
    ['request_too_large', 413, 'INVALID_ARGUMENT', undefined],
    ['rate_limit', 429, 'RESOURCE_EXHAUSTED', undefined],
    ['concurrency_limit', 429, 'RESOURCE_EXHAUSTED', undefined],
    ['upstream_error', 502, 'INTERNAL', undefined],
    ['no_available_account', 503, 'UNAVAILABLE', undefined],
    ['overloaded', 503, 'UNAVAILABLE', undefined],
    ['overloaded', 529, 'UNAVAILABLE', 529],
    ['timeout', 502, 'DEADLINE_EXCEEDED', undefined],
    ['internal', 500, 'INTERNAL', undefined],
  ];

  it.each(TABLE)('%s → HTTP %i, status %s', (kind, http, status, explicitStatus) => {
    const rendered = encodeGenerateContentError(new GatewayError(kind, `about ${kind}`, explicitStatus ? { status: explicitStatus } : {}));
    expect(rendered).toEqual({ status: http, body: { error: { code: http, message: `about ${kind}`, status } }, headers: {} });
  });

  it('adds retry-after (whole seconds) and a RetryInfo detail when a delay is known', () => {
    const rendered = encodeGenerateContentError(
      new GatewayError('rate_limit', 'slow down', { retryAfterSeconds: 34.4, headers: { 'x-ratelimit-reset': '60' } }),
    );
    expect(rendered.headers).toEqual({ 'retry-after': '35', 'x-ratelimit-reset': '60' });
    expect(rendered.body).toEqual({
      error: {
        code: 429,
        message: 'slow down',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '34.4s' }],
      },
    });
  });
});

describe('decodeGenerateContentError', () => {
  const envelope = (code: number, status: string, message: string) => JSON.stringify({ error: { code, message, status } });

  it.each([
    [400, envelope(400, 'INVALID_ARGUMENT', '* GenerateContentRequest.contents: contents is not specified'), 'invalid_request', 400],
    [401, envelope(401, 'UNAUTHENTICATED', 'API key not valid'), 'upstream_error', 502],
    [403, envelope(403, 'PERMISSION_DENIED', 'denied'), 'upstream_error', 502],
    [404, envelope(404, 'NOT_FOUND', 'models/x is not found'), 'upstream_error', 502],
    [413, envelope(413, 'INVALID_ARGUMENT', 'too big'), 'request_too_large', 413],
    [429, envelope(429, 'RESOURCE_EXHAUSTED', 'quota'), 'rate_limit', 429],
    [500, envelope(500, 'INTERNAL', 'oops'), 'upstream_error', 502],
    [503, envelope(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.'), 'overloaded', 503],
    [504, envelope(504, 'DEADLINE_EXCEEDED', 'deadline'), 'timeout', 502],
  ] as const)('HTTP %i → %s', (status, body, kind, gatewayStatus) => {
    const error = decodeGenerateContentError(status, body, {});
    expect(error.kind).toBe(kind);
    expect(error.status).toBe(gatewayStatus);
    expect(error.message).toBe((JSON.parse(body) as { error: { message: string } }).error.message);
    expect(error.upstream).toEqual({ status, body });
  });

  it.each([
    [{ 'retry-after': '12' }, 12],
    [{ 'Retry-After': ['3'] }, 3],
    [{ 'retry-after-ms': '1500', 'retry-after': '9' }, 1.5],
    [{ 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }, undefined],
    [{}, undefined],
  ])('reads the retry delay from headers %j', (headers, seconds) => {
    expect(decodeGenerateContentError(429, envelope(429, 'RESOURCE_EXHAUSTED', 'q'), headers).retryAfterSeconds).toBe(seconds);
  });

  it('prefers the header delay over the body RetryInfo', () => {
    const body = JSON.stringify({
      error: {
        code: 429,
        message: 'q',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '30s' }],
      },
    });
    expect(decodeGenerateContentError(429, body, { 'retry-after': '5' }).retryAfterSeconds).toBe(5);
    expect(decodeGenerateContentError(429, body, {}).retryAfterSeconds).toBe(30);
  });

  it('reads the error of a JSON-array stream body', () => {
    const error = decodeGenerateContentError(503, `[${envelope(503, 'UNAVAILABLE', 'busy')}]`, {});
    expect(error.kind).toBe('overloaded');
    expect(error.message).toBe('busy');
  });

  it.each([
    ['a plain-text body', 'upstream connect error', 'upstream connect error'],
    ['an empty body', '', 'upstream answered HTTP 502'],
    ['an HTML page', `<html>${'x'.repeat(600)}</html>`, 'upstream answered HTTP 502'],
  ])('keeps a readable message for %s', (_name, body, message) => {
    const error = decodeGenerateContentError(502, body, {});
    expect(error.kind).toBe('upstream_error');
    expect(error.message).toBe(message);
  });
});
