/** The error envelope of each surface (interface section 7), checked without jest so properties can report it. */
import type { ProbeAnswer } from './http-probe';

export type Surface = 'messages' | 'chat' | 'responses' | 'generate-content' | 'gateway';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why `body` is not an error in the surface's envelope, or undefined when it is. */
export function envelopeProblem(surface: Surface, body: unknown): string | undefined {
  if (!isRecord(body) || !isRecord(body.error)) return 'no {error: {...}} object';
  const error = body.error;
  if (typeof error.message !== 'string' || error.message === '') return 'error.message is not a non-empty string';
  switch (surface) {
    case 'messages':
      if (body.type !== 'error') return 'Messages envelope lacks type: "error"';
      return typeof error.type === 'string' ? undefined : 'error.type is not a string';
    case 'generate-content':
      if (typeof error.code !== 'number') return 'error.code is not a number';
      return typeof error.status === 'string' && /^[A-Z_]+$/.test(error.status) ? undefined : 'error.status is not a google.rpc status';
    default:
      if (typeof error.type !== 'string') return 'error.type is not a string';
      return typeof error.code === 'string' || error.code === null ? undefined : 'error.code is not a string';
  }
}

const LEAKS = [/\bat .+\.(?:ts|js):\d+/, /\/work\//, /node_modules/, /\/src\/[a-z-]+\//, /\bTypeError\b|\bRangeError\b|\bReferenceError\b/];

/** Every invariant an answer to a bad request must keep; the first one broken, or undefined. */
export function answerProblem(surface: Surface, answer: ProbeAnswer): string | undefined {
  if (answer.status >= 500 && ![502, 503, 529].includes(answer.status)) return `status ${answer.status}`;
  const leak = LEAKS.find((pattern) => pattern.test(answer.text));
  if (leak) return `body leaks internals (${String(leak)})`;
  if (answer.status < 400) return undefined;
  if (!String(answer.headers['content-type'] ?? '').includes('application/json'))
    return `content-type ${String(answer.headers['content-type'])}`;
  const problem = envelopeProblem(surface, answer.json);
  if (problem) return `${problem}: ${answer.text.slice(0, 300)}`;
  if ([502, 503, 529].includes(answer.status)) {
    const error = (answer.json as { error: Record<string, unknown> }).error;
    const transient =
      surface === 'messages'
        ? ['api_error', 'overloaded_error'].includes(String(error.type))
        : surface === 'generate-content'
          ? ['UNAVAILABLE', 'INTERNAL', 'DEADLINE_EXCEEDED'].includes(String(error.status))
          : // The gateway's own envelope says api_error; an upstream's overload forwarded as it said it (native
            // pass-through) keeps OpenAI's own type, server_error.
            ['api_error', 'server_error'].includes(String(error.type));
    if (!transient) return `a ${answer.status} that is not a transient error: ${answer.text.slice(0, 300)}`;
  }
  return undefined;
}
