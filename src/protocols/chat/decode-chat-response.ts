/** A Chat provider's complete answer → IR response (normalized usage, `{unified, raw}` finish). */
import { GatewayError } from '../../errors/gateway-error';
import type { ContentPart } from '../../ir/parts';
import type { IrResponse } from '../../ir/response';
import type { UpstreamDecodeContext } from '../codec';
import { restoreToolName } from '../shared/tool-names';
import { chatCompletionSchema } from './chat-upstream-schema';
import { convertChatUsage } from './convert-chat-usage';
import { readChatErrorDetails } from './decode-chat-error';
import { mapChatFinishReason } from './map-chat-finish-reason';
import { readChatArguments, readChatContent } from './read-chat-content';

export function decodeChatResponse(body: unknown, context: UpstreamDecodeContext): IrResponse {
  const parsed = chatCompletionSchema.safeParse(body);
  if (!parsed.success) {
    throw new GatewayError('upstream_error', 'the upstream answer is not a chat completion', { cause: parsed.error });
  }
  const data = parsed.data;
  const choice = data.choices?.find((candidate) => (candidate.index ?? 0) === 0) ?? data.choices?.[0];
  if (!choice) {
    // Some vendors answer errors with HTTP 200 and an error body.
    const details = readChatErrorDetails(body);
    throw new GatewayError('upstream_error', details.message ?? 'the upstream answer has no choices');
  }
  const message = choice.message;
  const content = readChatContent(message?.content);
  const parts: ContentPart[] = [];
  const reasoning = (message?.reasoning_content ?? message?.reasoning ?? '') + content.reasoning;
  if (reasoning !== '') parts.push({ type: 'reasoning', text: reasoning });
  if (content.text !== '') parts.push({ type: 'text', text: content.text });
  for (const call of message?.tool_calls ?? []) {
    parts.push({
      type: 'tool_call',
      id: call.id || context.newId('call_'),
      name: restoreToolName(call.function?.name ?? '', context.toolNames),
      argumentsJson: readChatArguments(call.function?.arguments),
    });
  }
  if (message?.refusal) parts.push({ type: 'refusal', text: message.refusal });
  const response: IrResponse = {
    id: data.id || context.newId('chatcmpl-'),
    model: data.model ?? '',
    parts,
    finish: mapChatFinishReason(choice.finish_reason, (message?.tool_calls?.length ?? 0) > 0),
    usage: convertChatUsage(data.usage),
  };
  if (typeof data.created === 'number') response.created = data.created;
  return response;
}
