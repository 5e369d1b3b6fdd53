/** Reading node's parsed headers and query: the first value of a repeated one. */
import type { RequestValues } from '../codec';

export function firstValue(values: RequestValues, name: string): string | undefined {
  const value = values[name];
  return Array.isArray(value) ? value[0] : value;
}
