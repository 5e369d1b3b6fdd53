/** zod validation of a client value, failing with the gateway's 400 that names the field. */
import type { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error';

function joinPath(prefix: string, path: readonly PropertyKey[]): string {
  const parts = path.map((key) => String(key));
  if (prefix !== '') parts.unshift(prefix);
  return parts.join('.');
}

function describe(issue: z.core.$ZodIssue): string {
  // zod words a missing field as a type mismatch against `undefined`; say it the API's way.
  if (issue.code === 'invalid_type' && / received undefined$/.test(issue.message)) return 'Field required';
  return issue.message;
}

/** Parses `value` with `schema`; `prefix` is the dotted path of `value` in the request body. */
export function parseClientField<Schema extends z.ZodType>(schema: Schema, value: unknown, prefix: string): z.infer<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = joinPath(prefix, issue.path);
  const where = path === '' ? 'body' : path;
  throw new GatewayError('invalid_request', `${where}: ${describe(issue)}`, { param: where });
}
