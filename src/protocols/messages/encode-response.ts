/** A complete IR answer → the Messages response body (INTERFACE.md 2.3). */
import type { IrResponse } from '../../ir/response';
import type { CodecContext, InboundStreamOptions } from '../codec';
import { encodeClientContent } from './client-content';
import { toMessagesUsage } from './convert-usage';
import { toMessagesStopReason } from './map-finish-reason';
import type { MessagesResponseBody } from './wire-types';

/** Messages ids start with `msg_`; an answer translated from another protocol gets a new one. */
export function clientMessageId(upstreamId: string, context: CodecContext): string {
  return upstreamId.startsWith('msg_') ? upstreamId : context.newId('msg_');
}

export function encodeMessagesResponse(response: IrResponse, options: InboundStreamOptions, context: CodecContext): MessagesResponseBody {
  const stop = toMessagesStopReason(response.finish);
  return {
    id: clientMessageId(response.id, context),
    type: 'message',
    role: 'assistant',
    model: options.model,
    content: encodeClientContent(response.parts),
    stop_reason: stop.stopReason,
    stop_sequence: stop.stopSequence,
    usage: toMessagesUsage(response.usage),
  };
}
