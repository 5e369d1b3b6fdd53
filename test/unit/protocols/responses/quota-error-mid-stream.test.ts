/**
 * Regression, issue 9 (capture `responses/openai-error.1`): OpenAI's `insufficient_quota` decoded
 * as `rate_limit` 429 from an HTTP 429 body but as `upstream_error` 502 from the same error inside
 * a stream. Errors without an HTTP status now go through the one code mapping, so a failure gets
 * the same kind, status and message wherever it arrives.
 */
import { GatewayError } from '../../../../src/errors/gateway-error';
import { responsesCodec } from '../../../../src/protocols/responses';
import { collectIrStream, decodeContext, seededRandom, splitBytesRandomly } from '../../../support/sdk-responses';

const upstream = responsesCodec.upstream;
const QUOTA_MESSAGE = 'You exceeded your current quota, please check your plan and billing details.';
/** The error object of the recorded body and of the recorded stream's `error` event. */
const QUOTA_ERROR = { type: 'insufficient_quota', code: 'insufficient_quota', message: QUOTA_MESSAGE, param: null };
const CREATED = {
  type: 'response.created',
  sequence_number: 0,
  response: { id: 'resp_up', object: 'response', status: 'in_progress', model: 'gpt-up', output: [] },
};

function sse(frames: unknown[]): string {
  return frames.map((frame) => `event: ${(frame as { type: string }).type}\ndata: ${JSON.stringify(frame)}\n\n`).join('');
}

function decodeStream(text: string): { error?: GatewayError; finished: boolean } {
  const decoder = upstream.createStreamDecoder(decodeContext());
  const events = [...splitBytesRandomly(text, seededRandom(9), 17).flatMap((piece) => decoder.push(piece)), ...decoder.end()];
  expect(events.filter((event) => event.type === 'error')).toHaveLength(1);
  const collected = collectIrStream(events);
  return { error: collected.error, finished: collected.finish !== undefined };
}

function failedResponse(error: unknown): Record<string, unknown> {
  return { id: 'resp_up', object: 'response', status: 'failed', model: 'gpt-up', error, output: [] };
}

function identity(error: GatewayError | undefined): Record<string, unknown> {
  return { kind: error?.kind, status: error?.status, message: error?.message, retryable: error?.retryable };
}

describe('Responses decoders: the quota error is a rate limit wherever it arrives', () => {
  const fromBody = upstream.decodeError(429, JSON.stringify({ error: QUOTA_ERROR }), {});

  it('decodes the HTTP 429 body as rate_limit 429 (the reference)', () => {
    expect(identity(fromBody)).toEqual({ kind: 'rate_limit', status: 429, message: QUOTA_MESSAGE, retryable: true });
  });

  it.each<[string, string]>([
    [
      'the recorded stream: error event then response.failed',
      sse([
        CREATED,
        { type: 'error', sequence_number: 1, error: QUOTA_ERROR },
        { type: 'response.failed', sequence_number: 2, response: failedResponse({ code: 'insufficient_quota', message: QUOTA_MESSAGE }) },
      ]),
    ],
    ['the documented flat error event', sse([CREATED, { type: 'error', code: 'insufficient_quota', message: QUOTA_MESSAGE, param: null }])],
    [
      'response.failed alone',
      sse([CREATED, { type: 'response.failed', response: failedResponse({ code: 'insufficient_quota', message: QUOTA_MESSAGE }) }]),
    ],
  ])('decodes %s exactly as the body', (_name, text) => {
    const { error, finished } = decodeStream(text);
    expect(finished).toBe(false);
    expect(error).toBeInstanceOf(GatewayError);
    expect(identity(error)).toEqual(identity(fromBody));
    // Kept for the logs: the stream itself was a 200.
    expect(error?.upstream?.status).toBe(200);
  });

  it('decodes a 200 body that failed with the quota code exactly as the 429 body', () => {
    let thrown: unknown;
    try {
      upstream.decodeResponse(failedResponse({ code: 'insufficient_quota', message: QUOTA_MESSAGE }), decodeContext());
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GatewayError);
    expect(identity(thrown as GatewayError)).toEqual(identity(fromBody));
  });

  it.each<[string, Record<string, unknown>, string, number]>([
    ['rate_limit_exceeded', { code: 'rate_limit_exceeded', message: 'Rate limit reached' }, 'rate_limit', 429],
    ['a rate limit whose code is null (type tokens)', { type: 'tokens', code: null, message: 'Rate limit reached' }, 'rate_limit', 429],
    [
      'context_length_exceeded',
      { type: 'invalid_request_error', code: 'context_length_exceeded', message: 'too long' },
      'invalid_request',
      400,
    ],
    ['server_is_overloaded', { code: 'server_is_overloaded', message: 'busy' }, 'overloaded', 503],
    ['server_error', { code: 'server_error', message: 'boom' }, 'upstream_error', 502],
    ['an unknown code', { code: 'something_new', message: 'odd' }, 'upstream_error', 502],
  ])('maps the in-stream code %s like its HTTP status', (_name, errorObject, kind, status) => {
    const { error } = decodeStream(sse([CREATED, { type: 'error', error: errorObject }]));
    expect({ kind: error?.kind, status: error?.status }).toEqual({ kind, status });
  });

  it('keeps the retry hint of an in-stream rate limit message', () => {
    const { error } = decodeStream(sse([CREATED, { type: 'error', code: 'rate_limit_exceeded', message: 'Please try again in 1.5s.' }]));
    expect(error?.retryAfterSeconds).toBe(1.5);
  });

  it("lets a real HTTP status decide: a 401 with type invalid_request_error stays our account's failure", () => {
    const error = upstream.decodeError(
      401,
      JSON.stringify({ error: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key' } }),
      {},
    );
    expect({ kind: error.kind, status: error.status }).toEqual({ kind: 'upstream_error', status: 502 });
  });
});
