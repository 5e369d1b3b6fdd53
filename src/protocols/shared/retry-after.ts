/**
 * The one reader of an upstream error's retry hint, for every codec: `retry-after-ms` (the more
 * precise), then `retry-after` in seconds, then — when the caller passes the message — the
 * "Please try again in 1.5s / 450ms" sentence OpenAI-style APIs put in it. The HTTP-date form of
 * `retry-after` is skipped: codecs have no clock here, and providers send seconds.
 */
export type HeaderBag = Record<string, string | string[] | undefined>;

/** A header's first value, whatever the case of its name. */
export function headerValue(headers: HeaderBag, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

const NUMBER = /^\s*\d+(\.\d+)?\s*$/;

export function retryAfterSeconds(headers: HeaderBag, message?: string): number | undefined {
  const milliseconds = headerValue(headers, 'retry-after-ms');
  if (milliseconds !== undefined && NUMBER.test(milliseconds)) return Number(milliseconds) / 1000;
  const seconds = headerValue(headers, 'retry-after');
  if (seconds !== undefined && NUMBER.test(seconds)) return Number(seconds);
  const hint = message === undefined ? null : /try again in\s+(\d+(?:\.\d+)?)\s*(ms|s|seconds?)\b/i.exec(message);
  if (hint) return hint[2].toLowerCase() === 'ms' ? Number(hint[1]) / 1000 : Number(hint[1]);
  return undefined;
}
