/** Error envelopes both ways: every GatewayError kind rendered for clients (and read by the official SDK), provider errors decoded. */
import { GatewayError, type ErrorKind } from '../../../../src/errors/gateway-error';
import { messagesCodec } from '../../../../src/protocols/messages';
import { Anthropic, sdkError } from '../../../support/sdk-messages';
import { assembleStream, decodeContext } from './helpers';

const { encodeError } = messagesCodec.inbound;
const { decodeError } = messagesCodec.upstream;

/** The lead's table: kind → HTTP status and Messages error.type. */
const TABLE: Array<[ErrorKind, number, string]> = [
  ['invalid_request', 400, 'invalid_request_error'],
  ['unsupported_model', 400, 'unsupported_model'],
  ['unsupported_feature', 400, 'unsupported_feature'],
  ['protocol_unavailable', 400, 'invalid_request_error'],
  ['authentication', 401, 'authentication_error'],
  ['insufficient_balance', 402, 'insufficient_credits'],
  ['permission', 403, 'permission_error'],
  ['not_found', 404, 'not_found_error'],
  ['conflict', 409, 'invalid_request_error'],
  ['request_too_large', 413, 'request_too_large'],
  ['rate_limit', 429, 'rate_limit_error'],
  ['concurrency_limit', 429, 'rate_limit_error'],
  ['upstream_error', 502, 'api_error'],
  ['no_available_account', 503, 'api_error'],
  ['overloaded', 503, 'overloaded_error'],
  ['timeout', 502, 'api_error'],
  ['internal', 500, 'api_error'],
];

describe('Messages encodeError', () => {
  it.each(TABLE)('renders %s as HTTP %i %s, which the SDK raises with that status and message', async (kind, status, type) => {
    const rendered = encodeError(new GatewayError(kind, `a ${kind} happened`));
    expect(rendered).toEqual({ status, body: { type: 'error', error: { type, message: `a ${kind} happened` } }, headers: {} });
    const error = await sdkError({ status, body: JSON.stringify(rendered.body), headers: { 'content-type': 'application/json' } }, false);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    const apiError = error as InstanceType<typeof Anthropic.APIError>;
    expect(apiError.status).toBe(status);
    expect(apiError.type).toBe(type);
    expect(apiError.message).toContain(`a ${kind} happened`);
  });

  it('uses error.status (an overloaded 529 stays 529, an OverloadedError in the SDK)', async () => {
    const rendered = encodeError(new GatewayError('overloaded', 'busy', { status: 529 }));
    expect(rendered.status).toBe(529);
    const error = await sdkError(
      { status: 529, body: JSON.stringify(rendered.body), headers: { 'content-type': 'application/json' } },
      true,
    );
    expect(error).toBeInstanceOf(Anthropic.OverloadedError);
  });

  it("adds retry-after (whole seconds, rounded up) and the error's own headers", () => {
    const rendered = encodeError(
      new GatewayError('rate_limit', 'slow', { retryAfterSeconds: 1.2, headers: { 'x-ratelimit-reset': '100' } }),
    );
    expect(rendered.headers).toEqual({ 'x-ratelimit-reset': '100', 'retry-after': '2' });
    expect(encodeError(new GatewayError('rate_limit', 'slow', { retryAfterSeconds: 0 })).headers).toEqual({ 'retry-after': '0' });
  });
});

describe('Messages decodeError', () => {
  const envelope = (type: string, message: string) => JSON.stringify({ type: 'error', error: { type, message } });

  const cases: Array<[string, number, string, Record<string, string | string[]>, Partial<GatewayError>]> = [
    [
      'a 400 invalid request keeps the provider message',
      400,
      envelope('invalid_request_error', 'messages.0: bad'),
      {},
      { kind: 'invalid_request', status: 400, message: 'messages.0: bad' },
    ],
    [
      'a 529 overloaded stays 529',
      529,
      envelope('overloaded_error', 'Overloaded'),
      {},
      { kind: 'overloaded', status: 529, message: 'Overloaded' },
    ],
    ['a 500 with overloaded_error is overloaded', 500, envelope('overloaded_error', 'Overloaded'), {}, { kind: 'overloaded', status: 529 }],
    [
      'a 429 reads retry-after seconds',
      429,
      envelope('rate_limit_error', 'Too many'),
      { 'Retry-After': '7' },
      { kind: 'rate_limit', status: 429, retryAfterSeconds: 7 },
    ],
    [
      'retry-after-ms wins over retry-after',
      429,
      envelope('rate_limit_error', 'Too many'),
      { 'retry-after': '7', 'retry-after-ms': '1500' },
      { retryAfterSeconds: 1.5 },
    ],
    ['an array header value is read', 429, envelope('rate_limit_error', 'x'), { 'retry-after': ['3'] }, { retryAfterSeconds: 3 }],
    [
      'an HTTP-date retry-after is ignored (no clock in a codec)',
      429,
      envelope('rate_limit_error', 'x'),
      { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' },
      { retryAfterSeconds: undefined },
    ],
    [
      "our own rejected credential is not shown as the caller's",
      401,
      envelope('authentication_error', 'invalid x-api-key'),
      {},
      { kind: 'upstream_error', status: 502, message: 'the upstream account was rejected (HTTP 401)' },
    ],
    [
      'a body that is not JSON becomes the message',
      502,
      '<html>Bad gateway</html>',
      {},
      { kind: 'upstream_error', status: 502, message: '<html>Bad gateway</html>' },
    ],
    ['an empty body names the status', 504, '', {}, { kind: 'timeout', status: 502, message: 'upstream answered HTTP 504' }],
  ];

  it.each(cases)('%s', (_name, status, body, headers, expected) => {
    const error = decodeError(status, body, headers);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject(expected);
    if ('retryAfterSeconds' in expected) expect(error.retryAfterSeconds).toBe(expected.retryAfterSeconds);
    expect(error.upstream).toEqual({ status, body });
  });

  it.each([
    ['overloaded_error', 'overloaded'],
    ['rate_limit_error', 'rate_limit'],
    ['api_error', 'upstream_error'],
    ['invalid_request_error', 'invalid_request'],
    ['something_new', 'upstream_error'],
  ])('reads a mid-stream `event: error` of type %s as %s', (type, kind) => {
    const decoder = messagesCodec.upstream.createStreamDecoder(decodeContext());
    const sse =
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":3,"output_tokens":1}}}\n\n' +
      `event: error\ndata: ${envelope(type, 'went wrong')}\n\n` +
      'event: message_stop\ndata: {"type":"message_stop"}\n\n';
    const stream = assembleStream([...decoder.push(sse), ...decoder.end()]);
    expect(stream.error).toMatchObject({ kind, message: 'went wrong' });
    expect(stream.finish).toBeUndefined();
  });

  it('answers an error event for an unreadable frame', () => {
    const decoder = messagesCodec.upstream.createStreamDecoder(decodeContext());
    const stream = assembleStream([...decoder.push('event: content_block_delta\ndata: {not json\n\n'), ...decoder.end()]);
    expect(stream.error?.kind).toBe('upstream_error');
  });

  it('throws the provider error when a complete answer is an error envelope', () => {
    expect(() => messagesCodec.upstream.decodeResponse(JSON.parse(envelope('overloaded_error', 'busy')), decodeContext())).toThrow(
      expect.objectContaining({ kind: 'overloaded' }),
    );
    expect(() => messagesCodec.upstream.decodeResponse('nonsense', decodeContext())).toThrow(
      expect.objectContaining({ kind: 'upstream_error' }),
    );
  });
});
