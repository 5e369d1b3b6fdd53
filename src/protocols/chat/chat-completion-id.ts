/** Chat clients see `chatcmpl-` ids; an upstream id of another shape (msg_, resp_, a uuid) is replaced. */
import type { CodecContext } from '../codec';

export function chatCompletionId(upstreamId: string | undefined, context: CodecContext): string {
  return upstreamId !== undefined && upstreamId.startsWith('chatcmpl-') ? upstreamId : context.newId('chatcmpl-');
}
