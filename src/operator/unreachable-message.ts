/**
 * Why a verification probe got no answer at all, in the operator's words: connection refused, a
 * host name that does not resolve, a TLS failure (with its code, which names the certificate
 * problem), no answer in time, else the transport's own message (scrubbed of credentials, as the
 * dial's own detail is: the operator's console shows it).
 */
import { scrubSecrets } from '../errors/scrub-secrets';

/**
 * The certificate verification codes Node's TLS layer reports (OpenSSL's X509_V_ERR_* names, see
 * Node's `tls` documentation); a handshake failure instead carries `ERR_TLS_*` (Node's own checks,
 * such as `ERR_TLS_CERT_ALTNAME_INVALID`) or `ERR_SSL_*` (OpenSSL's, such as
 * `ERR_SSL_WRONG_VERSION_NUMBER` when https meets a plain-http port).
 */
const CERTIFICATE_CODES = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CRL_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CRL_NOT_YET_VALID',
  'CRL_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'ERROR_IN_CRL_LAST_UPDATE_FIELD',
  'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
]);

function isTlsErrorCode(code: string): boolean {
  return CERTIFICATE_CODES.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_');
}

/** The error's code: undici's fetch wraps the socket's error as its `cause`. */
function codeOf(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  const code = cause?.code ?? (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

export function unreachableMessage(baseUrl: string, error: unknown): string {
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  const why =
    code === 'ECONNREFUSED'
      ? 'connection refused'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'the host name does not resolve (DNS)'
        : code !== undefined && isTlsErrorCode(code)
          ? `TLS failed (${code})`
          : code === 'UND_ERR_CONNECT_TIMEOUT' || /timeout|did not answer/i.test(message)
            ? 'no answer in time'
            : `${scrubSecrets(message)}${code ? ` (${code})` : ''}`;
  return `cannot reach ${baseUrl}: ${why}`;
}
