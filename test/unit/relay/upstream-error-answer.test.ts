/** Issue 25 item 4: the one spot raw upstream error bodies pass through, and what is forwarded as said. */
import { GatewayError } from '../../../src/errors/gateway-error';
import { forwardedAsSaid, scrubUpstreamErrorBody } from '../../../src/relay/upstream-error-answer';
import type { UpstreamAccount } from '../../../src/upstream/upstream-account';

const account: UpstreamAccount = {
  id: 1,
  groupId: 1,
  name: 'a',
  protocol: 'chat',
  baseUrl: 'http://x',
  credential: 'sk-live-0123456789abcdef',
  models: ['*'],
  priority: 0,
  weight: 1,
};

describe('scrubUpstreamErrorBody', () => {
  it("removes every occurrence of the serving account's credential", () => {
    const body = JSON.stringify({
      error: { message: 'Incorrect API key provided: sk-live-0123456789abcdef. Key sk-live-0123456789abcdef is not valid.' },
    });
    const scrubbed = scrubUpstreamErrorBody(body, account);
    expect(scrubbed).not.toContain(account.credential);
    expect(scrubbed.match(/\[redacted credential\]/g)).toHaveLength(2);
  });
  it('leaves a body without it byte for byte', () => {
    const body = '{"error":{"message":"bad"}}';
    expect(scrubUpstreamErrorBody(body, account)).toBe(body);
  });
});

describe('forwardedAsSaid', () => {
  const invalid = new GatewayError('invalid_request', 'bad');
  it.each([
    [400, true],
    [404, true],
    [413, true],
    [422, true],
    [429, true],
    [529, true],
    [401, false],
    [403, false],
    [500, false],
    [503, false],
  ])('HTTP %d → %s', (status, expected) => {
    const decoded = status === 401 || status === 403 || status >= 500 ? new GatewayError('upstream_error', 'x') : invalid;
    expect(forwardedAsSaid(status, decoded)).toBe(expected);
  });
  it('not a rejected credential answered 400 (Google API_KEY_INVALID) nor an overflow', () => {
    expect(forwardedAsSaid(400, new GatewayError('upstream_error', 'API key not valid'))).toBe(false);
    expect(forwardedAsSaid(400, new GatewayError('invalid_request', 'too long', { contextOverflow: {} }))).toBe(false);
  });
});
