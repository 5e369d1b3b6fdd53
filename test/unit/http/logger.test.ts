import { Writable } from 'node:stream';
import { createLogger, maskSecret, redactText } from '../../../src/http/logger';

const SECRET = 'sk-svc-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd';

function capture(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  return {
    lines,
    stream: new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  };
}

describe('log redaction', () => {
  it('masks a key to its last four characters', () => {
    expect(maskSecret(SECRET)).toBe('sk-svc-...abcd');
    expect(redactText(`GET /v1beta/models/x:generateContent?key=${SECRET}&alt=sse`)).not.toContain(SECRET.slice(7, -4));
  });

  it('never writes a secret in headers, query strings or messages', () => {
    const { lines, stream } = capture();
    const logger = createLogger('info', stream);
    logger.info(
      { headers: { authorization: `Bearer ${SECRET}`, 'x-api-key': SECRET, 'x-goog-api-key': SECRET, cookie: 'gw_session=abc' } },
      'request',
    );
    logger.info({ req: { headers: { authorization: `Bearer ${SECRET}` } } }, 'nested');
    logger.info(`key ${SECRET} used at ?key=${SECRET}`);
    logger.info({ upstream: { apiKey: 'provider-secret', credential: 'cred' } }, 'upstream');
    const output = lines.join('');
    expect(output).not.toContain(SECRET.slice(7, -4));
    expect(output).not.toContain('provider-secret');
    expect(output).not.toContain('gw_session=abc');
    expect(output).toContain('[redacted]');
  });
});
