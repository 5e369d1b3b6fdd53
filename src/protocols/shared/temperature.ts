/** Messages takes 0–1, the others 0–2: clamp when translating, never rescale. */
export function clampTemperature(value: number, max: number): number {
  return Math.min(Math.max(value, 0), max);
}
