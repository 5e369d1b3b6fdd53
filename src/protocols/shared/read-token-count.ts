/** A token count in an upstream's count answer: a non-negative integer under `field`, else undefined. */
export function readTokenCount(body: unknown, field: string): number | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[field];
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}
