/**
 * Tool arguments are a JSON string in Chat and Responses and an object in Messages and
 * Generate-Content. String → object: parse; empty → `{}`; unparsable → wrapped, never dropped.
 */
export function argumentsToObject(argumentsJson: string): Record<string, unknown> {
  if (argumentsJson.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    return { value: parsed };
  } catch {
    return { _raw_arguments: argumentsJson };
  }
}

export function objectToArguments(input: unknown): string {
  return JSON.stringify(input ?? {});
}

/** Arguments as a Chat or Responses client sees them: always a string `JSON.parse` accepts ('' → '{}'). */
export const EMPTY_ARGUMENTS = '{}';

export function clientArguments(argumentsJson: string): string {
  return argumentsJson.trim() === '' ? EMPTY_ARGUMENTS : argumentsJson;
}
