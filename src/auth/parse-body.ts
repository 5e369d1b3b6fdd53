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

export function parseBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = fieldPath(issue.path);
  if (!field && issue.code === 'invalid_type') throw new GatewayError('invalid_request', 'the request body must be a JSON object');
  throw new GatewayError('invalid_request', field ? `${field}: ${issue.message}` : issue.message, field ? { param: field } : {});
}
