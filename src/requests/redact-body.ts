/**
 * Kept bodies never hold a secret: values under credential-like names (keys, tokens, passwords,
 * authorization), bearer tokens and key-shaped strings anywhere, and the operator's own JSON paths
 * (`REQUEST_BODY_REDACT_PATHS`, e.g. `metadata.user_id`, `tools[].secret`) are replaced; the text is
 * cut at the size cap. Redaction works on the JSON text (two regular-expression passes), so a body
 * is serialized once and never copied; only configured paths need it parsed.
 */
const REDACTED = '[redacted]';
const SECRET_NAMES = 'api[-_]?key|x-api-key|x-goog-api-key|key|secret|client[-_]?secret|password|passwd|token|access[-_]?token|refresh[-_]?token|id[-_]?token|authorization|credentials?|private[-_]?key|session[-_]?token';
/** `"name": value` for a credential-like name and a scalar value (a string, number or boolean). */
const SECRET_FIELD = new RegExp(`"(${SECRET_NAMES})"(\\s*:\\s*)(?:"(?:[^"\\\\]|\\\\.)*"|-?\\d[\\d.eE+-]*|true|false)`, 'gi');
const SECRET_TEXT = /(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}|\b(?:sk|gw|pk|rk|sess)[-_][A-Za-z0-9_-]{12,}|\bAIza[0-9A-Za-z_-]{20,}|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g;

/** Paths as segment lists; `[]` means every element of an array. */
export function parseRedactPaths(paths: readonly string[]): string[][] {
  return paths.map((path) => path.replace(/\[\]/g, '.[]').split('.').filter(Boolean));
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

/** A body's text (JSON or not) redacted and cut at `maxBytes`. */
export function redactTextBody(text: string, paths: readonly string[][], maxBytes: number): { text: string; truncated: boolean } {
  let out = text.replace(SECRET_FIELD, `"$1"$2"${REDACTED}"`)
    .replace(SECRET_TEXT, (_match, bearer: string | undefined) => (bearer ? `${bearer}${REDACTED}` : REDACTED));
  if (paths.length > 0) {
    try {
      const parsed: unknown = JSON.parse(out);
      for (const path of paths) redactPath(parsed, path);
      out = JSON.stringify(parsed);
    } catch {
      // not JSON: no paths to follow
    }
  }
  return capText(out, maxBytes);
}

/** A parsed body (left untouched) redacted, as JSON text of at most `maxBytes`. */
export function redactBody(value: unknown, paths: readonly string[][], maxBytes: number): { text: string; truncated: boolean } {
  return redactTextBody(typeof value === 'string' ? value : JSON.stringify(value) ?? '', paths, maxBytes);
}

function capText(text: string, maxBytes: number): { text: string; truncated: boolean } {
  if (text.length <= maxBytes / 3 || Buffer.byteLength(text) <= maxBytes) return { text, truncated: false };
  return { text: Buffer.from(text).subarray(0, maxBytes).toString('utf8').replace(/\uFFFD$/, ''), truncated: true };
}
