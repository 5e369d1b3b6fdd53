/** A complete IR answer → the `chat.completion` object a Chat client expects. */
import { GatewayError } from '../../errors/gateway-error';
import type { IrResponse } from '../../ir/response';
import type { ReasoningPart } from '../../ir/parts';
import type { CodecContext, InboundStreamOptions } from '../codec';
import { clientArguments } from '../shared/tool-arguments';
import { chatCompletionId } from './chat-completion-id';
import { wrapReasoningEnvelope } from './chat-reasoning-envelope';
import { embedToolCallId } from './chat-tool-call-id';
import type { ChatAssistantMessageBody, ChatCompletionBody, ChatToolCallBody } from './chat-wire-types';
import { toChatUsage } from './convert-chat-usage';
import { toChatFinishReason } from './map-chat-finish-reason';

export function encodeChatResponse(response: IrResponse, options: InboundStreamOptions, context: CodecContext): ChatCompletionBody {
  const finish = response.finish;
  if (finish.unified === 'error') {
    // Chat has no finish_reason for a failed generation; never pass it off as a clean stop.
    throw new GatewayError('upstream_error', `the upstream ended the answer with an error (${finish.raw ?? 'unknown'})`);
  }
  const texts: string[] = [];
  const refusals: string[] = [];
  const reasoning: ReasoningPart[] = [];
  const toolCalls: ChatToolCallBody[] = [];
  for (const part of response.parts) {
    switch (part.type) {
      case 'text':
        texts.push(part.text);
        break;
      case 'refusal':
        refusals.push(part.text);
        break;
      case 'reasoning':
        reasoning.push(part);
        break;
      case 'tool_call':
        toolCalls.push({
          id: embedToolCallId(part.id === '' ? context.newId('call_') : part.id, part.signature, context),
          type: 'function',
          function: { name: part.name, arguments: clientArguments(part.argumentsJson) },
        });
        break;
      // Chat answers carry no images, documents or provider-native blocks: not representable here.
      case 'image':
      case 'document':
      case 'tool_result':
      case 'native':
        break;
    }
  }
  const message: ChatAssistantMessageBody = {
    role: 'assistant',
    // Parts of one answer are contiguous pieces of it (the stream concatenates them the same way).
    content: texts.length > 0 ? texts.join('') : null,
    refusal: refusals.length > 0 ? refusals.join('') : null,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoning.length > 0) {
    message.reasoning_content = reasoning.map((part) => part.text).join('');
    const envelope = wrapReasoningEnvelope(reasoning);
    if (envelope !== undefined) message.reasoning_signature = envelope;
  }
  return {
    id: chatCompletionId(response.id, context),
    object: 'chat.completion',
    created: response.created ?? context.now(),
    model: options.model,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: toChatFinishReason(finish.unified, toolCalls.length > 0),
      },
    ],
    usage: toChatUsage(response.usage),
  };
}
