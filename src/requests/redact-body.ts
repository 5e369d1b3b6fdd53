/**
 * Kept bodies never hold a secret: values under credential-like names (keys, tokens, passwords,
 * authorization), bearer tokens and key-shaped strings anywhere, and the operator's own JSON paths
 * (`REQUEST_BODY_REDACT_PATHS`, e.g. `metadata.user_id`, `tools[].secret`) are replaced; the text is
 * cut at the size cap. Redaction works on the JSON text, so a body is serialized once and never
 * copied; only configured paths need it parsed. It is cheap where there is nothing to redact (most
 * of a body is prose): credential-named fields are found by looking only at each `"name":` (a
 * search for `:`, then a test of that one name), not by a regular expression run over the whole
 * text; the key-shaped-string pass runs only when a literal hint of one (`Bearer`, `sk-`, `AIza`, …) is there.
 */
const REDACTED = '[redacted]';
const SECRET_NAMES =
  'api[-_]?key|x-api-key|x-goog-api-key|key|secret|client[-_]?secret|password|passwd|token|access[-_]?token|refresh[-_]?token|id[-_]?token|authorization|credentials?|private[-_]?key|session[-_]?token';
/** A credential-like field name, whole. */
const SECRET_NAME = new RegExp(`^(?:${SECRET_NAMES})$`, 'i');
/** A scalar JSON value (a string, number or boolean) starting exactly at `lastIndex`. */
const SCALAR = /"(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|true|false/y;
/** Something every SECRET_TEXT match contains (a cheaper scan than SECRET_TEXT itself). */
const SECRET_HINT = /Bearer|[sgpr]k[-_]|gw[-_]|sess[-_]|AIza|eyJ/;
const SECRET_TEXT =
  /(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}|\b(?:sk|gw|pk|rk|sess)[-_][A-Za-z0-9_-]{12,}|\bAIza[0-9A-Za-z_-]{20,}|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g;

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

const isSpace = (code: number) => code === 32 || code === 10 || code === 13 || code === 9;

/** `"name": value` → `"name": "[redacted]"` for a credential-like name and a scalar value (whitespace kept). */
function redactSecretFields(text: string): string {
  let out = '';
  let copied = 0;
  for (let colon = text.indexOf(':'); colon !== -1; colon = text.indexOf(':', colon + 1)) {
    let close = colon - 1;
    while (close > 0 && isSpace(text.charCodeAt(close))) close -= 1;
    if (close < 1 || text.charCodeAt(close) !== 34 /* '"' */) continue;
    const open = text.lastIndexOf('"', close - 1);
    if (open < 0 || !SECRET_NAME.test(text.slice(open + 1, close))) continue;
    let start = colon + 1;
    while (start < text.length && isSpace(text.charCodeAt(start))) start += 1;
    SCALAR.lastIndex = start;
    const value = SCALAR.exec(text);
    if (!value) continue;
    out += `${text.slice(copied, start)}"${REDACTED}"`;
    copied = start + value[0].length;
    colon = copied - 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** A body's text (JSON or not) redacted and cut at `maxBytes`. */
export function redactTextBody(text: string, paths: readonly string[][], maxBytes: number): { text: string; truncated: boolean } {
  let out = redactSecretFields(text);
  if (SECRET_HINT.test(out))
    out = out.replace(SECRET_TEXT, (_match, bearer: string | undefined) => (bearer ? `${bearer}${REDACTED}` : REDACTED));
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
  return redactTextBody(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''), paths, maxBytes);
}

function capText(text: string, maxBytes: number): { text: string; truncated: boolean } {
  if (text.length <= maxBytes / 3 || Buffer.byteLength(text) <= maxBytes) return { text, truncated: false };
  return {
    text: Buffer.from(text)
      .subarray(0, maxBytes)
      .toString('utf8')
      .replace(/\uFFFD$/, ''),
    truncated: true,
  };
}
