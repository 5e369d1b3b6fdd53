/**
 * Upstream credentials never leave the process: every upstream account's secret is registered here
 * when it is decrypted (the upstream directory, the operator's test), and `scrubSecrets` replaces
 * each of them, by value, in any text about to leave: GatewayError messages and upstream bodies
 * (hence every client error body, the dial test's detail, the operator's test result) and every log
 * line. Process-wide on purpose: a secret known to any part of the process is scrubbed from all of
 * them. Secrets shorter than MIN_SECRET_LENGTH are not registered (they would mangle ordinary text).
 */
export const SCRUBBED_SECRET = '[redacted credential]';
const MIN_SECRET_LENGTH = 6;

const secrets = new Set<string>();
let pattern: RegExp | undefined;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Remembers a credential (and its JSON-escaped spelling, when it differs) to scrub from now on. */
export function registerSecret(secret: string): void {
  if (secret.length < MIN_SECRET_LENGTH) return;
  const escaped = JSON.stringify(secret).slice(1, -1);
  const before = secrets.size;
  secrets.add(secret);
  secrets.add(escaped);
  if (secrets.size === before) return;
  // Longest first, so a secret that contains another is replaced whole.
  const alternatives = [...secrets].sort((a, b) => b.length - a.length).map(escapeRegExp);
  pattern = new RegExp(alternatives.join('|'), 'g');
}

/** The text with every registered secret replaced by SCRUBBED_SECRET. */
export function scrubSecrets(text: string): string {
  if (pattern === undefined || text.length < MIN_SECRET_LENGTH) return text;
  pattern.lastIndex = 0;
  return pattern.test(text) ? text.replace(pattern, SCRUBBED_SECRET) : text;
}
