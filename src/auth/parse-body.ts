/** zod validation at the edge: the first problem becomes a 400 naming the field (`ip_whitelist[2]`). */
import type { z } from 'zod';
import { GatewayError } from '../errors/gateway-error';

export function fieldPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else text += text ? `.${String(part)}` : String(part);
  }
  return text;
}

interface FoundIssue {
  path: PropertyKey[];
  message: string;
}

/**
 * Inside a union, a branch that got deeper than the union itself names the real field
 * (`image.data`); when none did, the union's own message stands, which a schema may word.
 */
function deepestIssue(issue: z.core.$ZodIssue): FoundIssue {
  let best: FoundIssue = { path: [...issue.path], message: issue.message };
  if (issue.code !== 'invalid_union') return best;
  for (const inner of issue.errors.flat()) {
    const found = deepestIssue(inner);
    if (found.path.length > 0 && issue.path.length + found.path.length > best.path.length)
      best = { path: [...issue.path, ...found.path], message: found.message };
  }
  return best;
}

/**
 * The one zod issue → 400 of the gateway's own routes (management, images, tasks): `field: message`,
 * the field as `param`. The codecs keep their own, in each vendor's wording.
 */
export function invalidRequestFrom(issue: z.core.$ZodIssue | undefined, whole: string): GatewayError {
  if (!issue) return new GatewayError('invalid_request', `${whole}: invalid`, { param: whole });
  const found = deepestIssue(issue);
  const field = fieldPath(found.path) || whole;
  return new GatewayError('invalid_request', `${field}: ${found.message}`, { param: field });
}

export function parseBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue.path.length === 0 && issue.code === 'invalid_type')
    throw new GatewayError('invalid_request', 'the request body must be a JSON object');
  if (issue.path.length === 0) throw new GatewayError('invalid_request', issue.message);
  throw invalidRequestFrom(issue, 'body');
}
