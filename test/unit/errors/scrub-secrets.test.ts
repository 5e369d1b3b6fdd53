/** Issue 21 finding 3: upstream credentials scrubbed by value from errors, bodies and log lines. */
import { Writable } from 'node:stream';
import { GatewayError } from '../../../src/errors/gateway-error';
import { registerSecret, scrubSecrets, SCRUBBED_SECRET } from '../../../src/errors/scrub-secrets';
import { createLogger } from '../../../src/http/logger';

const SECRET = 'upstream-unit-secret-d41d8cd98f';
const QUOTED = 'upstream"quoted\\secret-0042';

describe('issue 21 finding 3: scrubSecrets', () => {
  beforeAll(() => {
    registerSecret(SECRET);
    registerSecret(QUOTED);
  });

  it('replaces every occurrence of a registered secret, in text and in a JSON-escaped body', () => {
    expect(scrubSecrets(`bad key ${SECRET}; again ${SECRET}.`)).toBe(`bad key ${SCRUBBED_SECRET}; again ${SCRUBBED_SECRET}.`);
    const body = JSON.stringify({ error: { message: `key ${QUOTED}` } });
    expect(scrubSecrets(body)).not.toContain('quoted');
    expect(scrubSecrets('nothing here')).toBe('nothing here');
  });

  it('scrubs GatewayError messages and the upstream body kept for logs', () => {
    const error = new GatewayError('invalid_request', `Incorrect API key provided: ${SECRET}`, {
      upstream: { status: 401, body: `{"key":"${SECRET}"}` },
    });
    expect(error.message).toBe(`Incorrect API key provided: ${SCRUBBED_SECRET}`);
    expect(error.upstream?.body).not.toContain(SECRET);
  });

  it('scrubs every gateway log line, whatever field or nested error carries the secret', () => {
    const lines: string[] = [];
    const logger = createLogger(
      'debug',
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const cause = new Error(`upstream said ${SECRET}`);
    logger.error({ err: cause, upstream: { body: `echo ${SECRET}` }, nested: { deeper: [SECRET] } }, `failed with ${SECRET}`);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(SECRET);
    expect(lines[0]).toContain(SCRUBBED_SECRET);
  });
});
