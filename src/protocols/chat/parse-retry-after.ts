/**
 * Retry hints of an upstream error: `retry-after-ms`, `retry-after` (seconds), then the
 * "Please try again in 1.5s / 450ms" sentence OpenAI-style APIs put in the message. The HTTP-date
 * form of `retry-after` is skipped: codecs have no clock here, and providers send seconds.
 */
export type HeaderBag = Record<string, string | string[] | undefined>;

export function headerValue(headers: HeaderBag, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

function positive(value: number): number | undefined {
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

export function parseRetryAfterSeconds(headers: HeaderBag, message: string | undefined): number | undefined {
  const milliseconds = headerValue(headers, 'retry-after-ms');
  if (milliseconds !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(milliseconds)) {
    const value = positive(Number(milliseconds) / 1000);
    if (value !== undefined) return value;
  }
  const seconds = headerValue(headers, 'retry-after');
  if (seconds !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(seconds)) {
    const value = positive(Number(seconds));
    if (value !== undefined) return value;
  }
  const hint = message === undefined ? null : /try again in\s+(\d+(?:\.\d+)?)\s*(ms|s|seconds?)\b/i.exec(message);
  if (hint) return positive(hint[2] === 'ms' ? Number(hint[1]) / 1000 : Number(hint[1]));
  return undefined;
}
