/**
 * IR system + turns → Chat `messages` for a Chat upstream (PROTOCOLS.md 2.1-2.3): system parts in
 * one system message; tool results as `role: tool` messages placed right after the assistant
 * message that made the calls, then one user message with whatever else the turn held (images of
 * tool results included, since tool messages are text only); assistant tool-call-only messages with
 * `content: null`; reasoning replayed as `reasoning_content` on tool-call turns (compat vendors
 * with thinking modes require it); opaque values of other protocols never sent.
 */
import type { ContentPart, DocumentPart, ImagePart, Turn } from '../../ir/parts';
import type { IrRequest } from '../../ir/request';
import type { TranslationWarning } from '../../ir/warning';
import { toDataUrl } from '../shared/data-url';
import { sanitizeToolName } from '../shared/tool-names';
import { clientArguments } from '../shared/tool-arguments';
import type { ChatOutgoingMessage, ChatOutgoingUserPart, ChatToolCallBody } from './chat-wire-types';
import { sanitizeChatToolCallId } from './sanitize-chat-tool-call-id';

interface Sink {
  messages: ChatOutgoingMessage[];
  warnings: TranslationWarning[];
  toolNames: Record<string, string>;
}

function encodeImage(image: ImagePart, field: string, sink: Sink): ChatOutgoingUserPart | undefined {
  if (image.cacheHint) sink.warnings.push({ field: `${field}.cache_control`, message: 'cache hints are dropped for a Chat upstream' });
  const source = image.source;
  let url: string | undefined;
  switch (source.kind) {
    case 'base64':
      url = toDataUrl(source.mediaType, source.data);
      break;
    case 'url':
      url = source.url;
      break;
    case 'file':
      // A provider file reference only means something to its own provider; an https URI is still fetchable.
      url = source.uri !== undefined && /^https?:\/\//i.test(source.uri) ? source.uri : undefined;
      break;
  }
  if (url === undefined) {
    sink.warnings.push({ field, message: 'an image given as a provider file reference cannot be sent to a Chat upstream; dropped' });
    return undefined;
  }
  return { type: 'image_url', image_url: image.detail ? { url, detail: image.detail } : { url } };
}

function encodeDocument(document: DocumentPart, field: string, sink: Sink): ChatOutgoingUserPart | undefined {
  const source = document.source;
  const filename = document.title;
  switch (source.kind) {
    case 'base64':
      return { type: 'file', file: { file_data: toDataUrl(source.mediaType, source.data), ...(filename ? { filename } : {}) } };
    case 'file':
      if (source.fileId !== undefined) return { type: 'file', file: { file_id: source.fileId, ...(filename ? { filename } : {}) } };
      break;
    case 'url':
      break;
  }
  sink.warnings.push({ field, message: 'Chat takes documents only as inline data or a file id; dropped' });
  return undefined;
}

function encodeUserTurn(turn: Turn, field: string, sink: Sink): void {
  const toolMessages: ChatOutgoingMessage[] = [];
  const resultImages: ChatOutgoingUserPart[] = [];
  const parts: ChatOutgoingUserPart[] = [];
  turn.parts.forEach((part: ContentPart, index) => {
    const partField = `${field}.parts[${index}]`;
    switch (part.type) {
      case 'text':
        if (part.cacheHint)
          sink.warnings.push({ field: `${partField}.cache_control`, message: 'cache hints are dropped for a Chat upstream' });
        parts.push({ type: 'text', text: part.text });
        break;
      case 'image': {
        const image = encodeImage(part, partField, sink);
        if (image) parts.push(image);
        break;
      }
      case 'document': {
        const document = encodeDocument(part, partField, sink);
        if (document) parts.push(document);
        break;
      }
      case 'tool_result': {
        const texts: string[] = [];
        part.content.forEach((item, itemIndex) => {
          if (item.type === 'text') texts.push(item.text);
          else {
            const image = encodeImage(item, `${partField}.content[${itemIndex}]`, sink);
            if (image) resultImages.push(image);
          }
        });
        if (part.isError)
          sink.warnings.push({ field: `${partField}.is_error`, message: 'Chat tool messages have no error flag; sent as a plain result' });
        toolMessages.push({ role: 'tool', tool_call_id: sanitizeChatToolCallId(part.callId), content: texts.join('\n') });
        break;
      }
      case 'tool_call':
      case 'reasoning':
      case 'refusal':
      case 'native':
        sink.warnings.push({ field: partField, message: `a ${part.type} part in a user turn has no Chat equivalent; dropped` });
        break;
    }
  });
  sink.messages.push(...toolMessages);
  const content = [...resultImages, ...parts];
  if (content.length === 0) {
    if (toolMessages.length === 0) sink.warnings.push({ field, message: 'empty user turn dropped' });
    return;
  }
  const only = content[0];
  sink.messages.push({
    role: 'user',
    content: content.length === 1 && only.type === 'text' ? only.text : content,
  });
}

function encodeAssistantTurn(turn: Turn, field: string, sink: Sink): void {
  const texts: string[] = [];
  const refusals: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: ChatToolCallBody[] = [];
  turn.parts.forEach((part, index) => {
    const partField = `${field}.parts[${index}]`;
    switch (part.type) {
      case 'text':
        texts.push(part.text);
        break;
      case 'refusal':
        refusals.push(part.text);
        break;
      case 'reasoning':
        if (part.text !== '') reasoning.push(part.text);
        if (part.signature || part.redacted || part.encrypted || part.itemId) {
          sink.warnings.push({
            field: partField,
            message: 'opaque reasoning values are replayed only to the protocol that produced them; dropped',
          });
        }
        break;
      case 'tool_call':
        if (part.signature) {
          sink.warnings.push({
            field: `${partField}.signature`,
            message: `a ${part.signature.origin} signature is not replayed to a Chat upstream; dropped`,
          });
        }
        toolCalls.push({
          id: sanitizeChatToolCallId(part.id),
          type: 'function',
          function: { name: sanitizeToolName(part.name, sink.toolNames), arguments: clientArguments(part.argumentsJson) },
        });
        break;
      case 'image':
      case 'document':
      case 'tool_result':
      case 'native':
        sink.warnings.push({ field: partField, message: `a ${part.type} part in an assistant turn has no Chat equivalent; dropped` });
        break;
    }
  });
  if (texts.length === 0 && refusals.length === 0 && toolCalls.length === 0) {
    sink.warnings.push({ field, message: 'assistant turn without text or tool calls dropped' });
    return;
  }
  const message: ChatOutgoingMessage = {
    role: 'assistant',
    content: texts.length > 0 ? texts.join('') : toolCalls.length > 0 ? null : '',
  };
  if (refusals.length > 0) message.refusal = refusals.join('');
  if (toolCalls.length > 0) {
    message.tool_calls = toolCalls;
    if (reasoning.length > 0) message.reasoning_content = reasoning.join('');
  } else if (reasoning.length > 0) {
    sink.warnings.push({
      field,
      message: 'reasoning of an earlier answer is replayed to a Chat upstream only on tool-call turns; dropped',
    });
  }
  sink.messages.push(message);
}

export function encodeChatMessages(
  request: IrRequest,
  toolNames: Record<string, string>,
  warnings: TranslationWarning[],
): ChatOutgoingMessage[] {
  const sink: Sink = { messages: [], warnings, toolNames };
  if (request.system.length > 0) {
    request.system.forEach((part, index) => {
      if (part.cacheHint)
        warnings.push({ field: `system[${index}].cache_control`, message: 'cache hints are dropped for a Chat upstream' });
    });
    sink.messages.push({ role: 'system', content: request.system.map((part) => part.text).join('\n') });
  }
  request.turns.forEach((turn, index) => {
    const field = `turns[${index}]`;
    if (turn.role === 'user') encodeUserTurn(turn, field, sink);
    else encodeAssistantTurn(turn, field, sink);
  });
  return sink.messages;
}
