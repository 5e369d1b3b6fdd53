/** A complete IR answer → the client-facing Responses object. */
import { assertNever } from '../../ir/assert-never';
import type { ContentPart } from '../../ir/parts';
import type { IrResponse } from '../../ir/response';
import type { CodecContext, InboundStreamOptions } from '../codec';
import { clientArguments } from '../shared/tool-arguments';
import { toResponsesUsage } from './convert-usage';
import { responsesStatusFor } from './map-finish-reason';
import { encodeCallId, encodeReasoningCarrier } from './opaque-carrier';
import type { ToolDefinition } from '../../ir/request';
import { clientCallName, freeformInput, isFreeformCall } from './tool-namespaces';
import {
  customToolCallItem,
  functionCallItem,
  messageItem,
  outputTextContent,
  reasoningItem,
  refusalContent,
  type OutputContent,
} from './output-items';
import { buildResponseObject } from './response-object';

/** Message that a failed (finish `error`) answer carries when the upstream gave no detail. */
export const FAILED_FINISH_MESSAGE = 'the upstream model stopped with an error';

/**
 * Output items in order: consecutive text and refusal parts share one message item (the stream
 * encoder groups blocks the same way), reasoning and tool calls are items of their own.
 */
/** `tools`: the request's, so a call of a namespace member is shown with its namespace. */
export function encodeOutputItems(
  parts: ContentPart[],
  context: CodecContext,
  tools?: readonly ToolDefinition[],
): Array<Record<string, unknown>> {
  const items: Array<Record<string, unknown>> = [];
  let message: OutputContent[] | undefined;
  let messageId = '';
  const closeMessage = (): void => {
    if (message !== undefined) items.push(messageItem(messageId, message, 'completed'));
    message = undefined;
  };
  const openMessage = (): OutputContent[] => {
    if (message === undefined) {
      message = [];
      messageId = context.newId('msg_');
    }
    return message;
  };
  for (const part of parts) {
    switch (part.type) {
      case 'text':
        openMessage().push(outputTextContent(part.text));
        break;
      case 'refusal':
        openMessage().push(refusalContent(part.text));
        break;
      case 'reasoning': {
        closeMessage();
        const id = part.itemId?.origin === 'responses' ? part.itemId.value : context.newId('rs_');
        items.push(reasoningItem(id, part.text, encodeReasoningCarrier(part)));
        break;
      }
      case 'tool_call':
        closeMessage();
        items.push(
          isFreeformCall(part.name, tools)
            ? customToolCallItem(
                context.newId('ctc_'),
                encodeCallId(part.id, part.signature, context),
                clientCallName(part.name, tools),
                freeformInput(part.argumentsJson),
                'completed',
              )
            : functionCallItem(
                context.newId('fc_'),
                encodeCallId(part.id, part.signature, context),
                clientCallName(part.name, tools),
                clientArguments(part.argumentsJson),
                'completed',
              ),
        );
        break;
      case 'native':
        // Server-tool items of Responses itself are shown whole; other protocols' blocks cannot be.
        if (part.protocol === 'responses') {
          closeMessage();
          items.push(part.value);
        }
        break;
      case 'image':
      case 'document':
      case 'tool_result':
        // Not assistant output in this protocol's response shape.
        break;
      default:
        assertNever(part, 'content part');
    }
  }
  closeMessage();
  return items;
}

export function encodeResponsesResponse(
  response: IrResponse,
  options: InboundStreamOptions,
  context: CodecContext,
): Record<string, unknown> {
  const id = options.responseId ?? context.newId('resp_');
  const { status, incompleteReason } = responsesStatusFor(response.finish);
  return buildResponseObject({
    id,
    createdAt: context.now(),
    model: options.model,
    status,
    incompleteReason,
    error: status === 'failed' ? { code: 'server_error', message: FAILED_FINISH_MESSAGE } : null,
    output: encodeOutputItems(response.parts, context, options.request?.tools),
    usage: toResponsesUsage(response.usage),
    ...(options.request !== undefined ? { request: options.request } : {}),
  });
}
