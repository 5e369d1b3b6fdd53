/**
 * The probe's words for a call that got no answer: each Node network and TLS error code, as undici
 * wraps it (the socket's error as `cause`), named as the operator would look for it.
 */
import { registerSecret, SCRUBBED_SECRET } from '../../../src/errors/scrub-secrets';
import { unreachableMessage } from '../../../src/operator/unreachable-message';

function transportError(code: string, message = 'fetch failed'): Error {
  return new Error(message, { cause: Object.assign(new Error(`socket: ${code}`), { code }) });
}

describe('unreachableMessage', () => {
  const base = 'https://api.example.test';

  it.each([
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'CERT_HAS_EXPIRED',
    'CERT_NOT_YET_VALID',
    'ERR_TLS_CERT_ALTNAME_INVALID',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
    'CERT_REVOKED',
    'HOSTNAME_MISMATCH',
    'ERR_SSL_WRONG_VERSION_NUMBER',
    'ERR_TLS_HANDSHAKE_TIMEOUT',
  ])('%s: TLS failed, the code named', (code) => {
    expect(unreachableMessage(base, transportError(code))).toBe(`cannot reach ${base}: TLS failed (${code})`);
  });

  it.each([
    ['ECONNREFUSED', 'connection refused'],
    ['ENOTFOUND', 'the host name does not resolve (DNS)'],
    ['EAI_AGAIN', 'the host name does not resolve (DNS)'],
    ['UND_ERR_CONNECT_TIMEOUT', 'no answer in time'],
    // Codes that merely contain TLS-looking words are not TLS failures.
    ['ECONNRESET', 'fetch failed (ECONNRESET)'],
    ['ERR_CERTAINLY_NOT', 'fetch failed (ERR_CERTAINLY_NOT)'],
  ])('%s: %s', (code, why) => {
    expect(unreachableMessage(base, transportError(code))).toBe(`cannot reach ${base}: ${why}`);
  });

  it('a timeout without a code, and an error with none', () => {
    expect(unreachableMessage(base, new Error('upstream did not answer in time'))).toBe(`cannot reach ${base}: no answer in time`);
    expect(unreachableMessage(base, new Error('socket hang up'))).toBe(`cannot reach ${base}: socket hang up`);
  });

  it("scrubs a known upstream credential from the transport's own message", () => {
    const credential = 'sk-unreachable-test-credential-0123456789';
    registerSecret(credential);
    const message = unreachableMessage(base, new Error(`proxy refused Authorization: Bearer ${credential}`));
    expect(message).toBe(`cannot reach ${base}: proxy refused Authorization: Bearer ${SCRUBBED_SECRET}`);
  });
});
