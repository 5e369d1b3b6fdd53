/**
 * Structured logs (pino). Secrets never reach a log line: credentials in headers, query strings
 * and known body fields are redacted; an API key is reduced to its last four characters.
 */
import pino, { type Logger } from 'pino';
import { scrubSecrets } from '../errors/scrub-secrets';

export type { Logger } from 'pino';

const KEY_PATTERN = /sk-svc-[A-Za-z0-9_-]+/g;

/** `sk-svc-…abcd`: nothing of the secret beyond its last four characters. */
export function maskSecret(secret: string): string {
  return secret.length <= 4 ? '****' : `${secret.startsWith('sk-svc-') ? 'sk-svc-' : ''}...${secret.slice(-4)}`;
}

/** Replaces every `sk-svc-` key inside free text (URLs, messages) by its masked form. */
export function redactText(text: string): string {
  return text.replace(KEY_PATTERN, (match) => maskSecret(match)).replace(/([?&]key=)[^&\s]+/gi, '$1[redacted]');
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers["x-api-key"]',
          'req.headers["x-goog-api-key"]',
          'req.headers.cookie',
          'headers.authorization',
          'headers["x-api-key"]',
          'headers["x-goog-api-key"]',
          'headers.cookie',
          '*.apiKey',
          '*.api_key',
          '*.secret',
          '*.key',
          '*.password',
          '*.credential',
          '*.custom_key',
        ],
        censor: '[redacted]',
      },
      formatters: { level: (label) => ({ level: label }) },
      hooks: {
        // Free-text fields (msg, url) may carry a key: mask it whatever field it is in.
        logMethod(args, method) {
          const masked = args.map((arg) => (typeof arg === 'string' ? redactText(arg) : arg));
          method.apply(this, masked as Parameters<typeof method>);
        },
        // Upstream credentials by value, whatever field or nested error carries them.
        streamWrite: (line) => scrubSecrets(line),
      },
    },
    destination,
  );
}
