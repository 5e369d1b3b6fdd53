/** A zod failure → GatewayError(invalid_request) whose message names the field (`messages[2].content`). */
import type { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error';
import { fieldPath } from '../../errors/zod-issue';

type Issue = z.core.$ZodIssue;
type PathKey = PropertyKey;

/**
 * A union failure reports every branch; the branch that got furthest (longest path) is the one the
 * client meant, so its issue is the useful message.
 */
function deepestIssue(issue: Issue, prefix: readonly PathKey[]): { issue: Issue; path: PathKey[] } {
  const path = [...prefix, ...issue.path];
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return { issue, path };
  let best: { issue: Issue; path: PathKey[] } | undefined;
  for (const branch of issue.errors) {
    const first = branch[0];
    if (first === undefined) continue;
    const candidate = deepestIssue(first, path);
    if (best === undefined || candidate.path.length > best.path.length) best = candidate;
  }
  return best ?? { issue, path };
}

export function invalidRequestFromZod(error: z.ZodError): GatewayError {
  const first = error.issues[0];
  if (first === undefined) return new GatewayError('invalid_request', 'invalid request body');
  const { issue, path } = deepestIssue(first, []);
  const param = fieldPath(path);
  const message = param === '' ? issue.message : `${param}: ${issue.message}`;
  return new GatewayError('invalid_request', message, { param: param === '' ? undefined : param });
}
