/**
 * Kept bodies never hold a secret: values under credential-like names (keys, tokens, passwords,
 * authorization), bearer tokens and key-shaped strings anywhere, and the operator's own JSON paths
 * (`REQUEST_BODY_REDACT_PATHS`, e.g. `metadata.user_id`, `tools[].secret`) are replaced; the text is
 * cut at the size cap.
 */
const REDACTED = '[redacted]';
const SECRET_NAME = /^(?:api[-_]?key|x-api-key|x-goog-api-key|key|secret|client[-_]?secret|password|passwd|token|access[-_]?token|refresh[-_]?token|id[-_]?token|authorization|credentials?|private[-_]?key|session[-_]?token)$/i;
const SECRET_TEXT = /(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}|\b(?:sk|gw|pk|rk|sess)[-_][A-Za-z0-9_-]{12,}|\bAIza[0-9A-Za-z_-]{20,}|\bey[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g;

/** Paths as segment lists; `[]` means every element of an array. */
export function parseRedactPaths(paths: readonly string[]): string[][] {
  return paths.map((path) => path.replace(/\[\]/g, '.[]').split('.').filter(Boolean));
}

function redactText(text: string): string {
  return text.replace(SECRET_TEXT, (_match, bearer: string | undefined) => (bearer ? `${bearer}${REDACTED}` : REDACTED));
}

function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map(redactValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [name, inner] of Object.entries(value)) out[name] = SECRET_NAME.test(name) && inner !== null && typeof inner !== 'object' ? REDACTED : redactValue(inner);
    return out;
  }
  return value;
}

function redactPath(value: unknown, path: readonly string[]): void {
  if (path.length === 0 || value === null || typeof value !== 'object') return;
  const [head, ...rest] = path;
  if (head === '[]') {
    if (Array.isArray(value)) for (const item of value) redactPath(item, rest);
    return;
  }
  const holder = value as Record<string, unknown>;
  if (!(head! in holder)) return;
  if (rest.length === 0) holder[head!] = REDACTED;
  else redactPath(holder[head!], rest);
}

/** The value redacted (a copy; the input is untouched), as JSON text of at most `maxBytes` characters. */
export function redactBody(value: unknown, paths: readonly string[][], maxBytes: number): { text: string; truncated: boolean } {
  const copy = redactValue(value);
  for (const path of paths) redactPath(copy, path);
  return capText(typeof copy === 'string' ? copy : JSON.stringify(copy) ?? '', maxBytes);
}

/** A text body (an answer as sent) redacted and capped; JSON is redacted field by field when it parses. */
export function redactTextBody(text: string, paths: readonly string[][], maxBytes: number): { text: string; truncated: boolean } {
  if (text.length <= maxBytes * 4) {
    try {
      return redactBody(JSON.parse(text), paths, maxBytes);
    } catch {
      // not JSON: redacted as text
    }
  }
  return capText(redactText(text), maxBytes);
}

function capText(text: string, maxBytes: number): { text: string; truncated: boolean } {
  if (Buffer.byteLength(text) <= maxBytes) return { text, truncated: false };
  return { text: Buffer.from(text).subarray(0, maxBytes).toString('utf8').replace(/\uFFFD$/, ''), truncated: true };
}
