/**
 * Bounds how deeply a request body nests (arrays and objects). JSON.parse itself copes with any
 * depth, but everything after it that recurses (JSON.stringify of the upstream body, schema
 * normalisers, zod) overflows the stack somewhere past a few thousand levels. No real request comes
 * near the bound: JSON schemas of tools nest a few dozen levels at most.
 */
import { GatewayError } from '../errors/gateway-error';

export const MAX_JSON_DEPTH = 128;

/** Throws a 400 when `value` nests deeper than `MAX_JSON_DEPTH`; iterative, so it never overflows itself. */
export function assertJsonDepth(value: unknown, maxDepth = MAX_JSON_DEPTH): void {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > maxDepth) {
      throw new GatewayError('invalid_request', `request body nests deeper than ${maxDepth} levels`);
    }
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
}
