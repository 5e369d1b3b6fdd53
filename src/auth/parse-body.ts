/** zod validation at the edge: the first problem becomes a 400 naming the field (`ip_whitelist[2]`). */
import type { z } from 'zod';
import { GatewayError } from '../errors/gateway-error';
import { deepestIssue, fieldPath } from '../errors/zod-issue';

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
