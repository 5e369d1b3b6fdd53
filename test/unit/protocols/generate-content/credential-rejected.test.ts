import { generateContentCodec } from '../../../../src/protocols/generate-content';

// Google's answer to a wrong API key (400 INVALID_ARGUMENT with ErrorInfo reason API_KEY_INVALID).
const WRONG_KEY = JSON.stringify({
  error: {
    code: 400,
    message: 'API key not valid. Please pass a valid API key.',
    status: 'INVALID_ARGUMENT',
    details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }],
  },
});

describe('a refused Generate-Content credential', () => {
  it("is the gateway's upstream failure, not the caller's invalid request", () => {
    const error = generateContentCodec.upstream.decodeError(400, WRONG_KEY, {});
    expect(error.kind).toBe('upstream_error');
    expect(error.upstream?.status).toBe(400);
  });

  it("leaves other 400s as the caller's invalid request", () => {
    const body = JSON.stringify({ error: { code: 400, message: 'contents is empty', status: 'INVALID_ARGUMENT' } });
    expect(generateContentCodec.upstream.decodeError(400, body, {}).kind).toBe('invalid_request');
  });
});
