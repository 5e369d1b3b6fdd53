/**
 * IR turns → Messages `messages` (PROTOCOLS.md 2.1): strictly alternating roles, tool results first
 * in the user turn right after their calls, one result per call, thinking first in assistant
 * turns, no empty text blocks, a user turn first, no trailing whitespace in a final assistant turn.
 */
import { assertNever } from '../../ir/assert-never';
import type { ContentPart, Role, ToolResultPart, Turn } from '../../ir/parts';
import type { TranslationWarning } from '../../ir/warning';
import { argumentsToObject } from '../shared/tool-arguments';
import { sanitizeToolCallId } from '../shared/tool-call-ids';
import { sanitizeToolName } from '../shared/tool-names';
import { encodeMessagesDocument, encodeMessagesImage } from './encode-media';
import type { MessagesBlock, MessagesMessageParam } from './wire-types';

/** Said in the user turn the gateway has to insert before a conversation that opens with the assistant. */
const PLACEHOLDER_USER_TEXT = '(continue)';
const MISSING_RESULT_TEXT = 'No result was provided for this tool call.';

function isBlank(text: string): boolean {
  return text.trim() === '';
}

function encodeToolResult(part: ToolResultPart, path: string, warnings: TranslationWarning[]): MessagesBlock {
  const content: MessagesBlock[] = [];
  part.content.forEach((inner, k) => {
    if (inner.type === 'text') {
      if (!isBlank(inner.text)) content.push({ type: 'text', text: inner.text });
      return;
    }
    const image = encodeMessagesImage(inner, `${path}.content[${k}]`, warnings);
    if (image) content.push(image);
  });
  return {
    type: 'tool_result',
    tool_use_id: sanitizeToolCallId(part.callId),
    ...(content.length > 0 ? { content } : {}),
    ...(part.isError ? { is_error: true } : {}),
  };
}

function encodePart(
  part: ContentPart,
  path: string,
  toolNames: Record<string, string>,
  warnings: TranslationWarning[],
): MessagesBlock | undefined {
  switch (part.type) {
    case 'text':
      if (isBlank(part.text)) return undefined; // Messages rejects empty and whitespace-only text blocks.
      return { type: 'text', text: part.text, ...(part.cacheHint ? { cache_control: { ...part.cacheHint } } : {}) };
    case 'image':
      return encodeMessagesImage(part, path, warnings);
    case 'document':
      return encodeMessagesDocument(part, path, warnings);
    case 'tool_call':
      if (part.signature && part.signature.origin !== 'messages') {
        warnings.push({ field: `${path}.signature`, message: `a ${part.signature.origin} signature is not sent to another provider` });
      }
      return {
        type: 'tool_use',
        id: sanitizeToolCallId(part.id),
        name: sanitizeToolName(part.name, toolNames),
        input: argumentsToObject(part.argumentsJson),
      };
    case 'tool_result':
      return encodeToolResult(part, path, warnings);
    case 'reasoning':
      // Only this provider's own signed blocks can be replayed; anything else fails its signature check.
      if (part.redacted?.origin === 'messages') return { type: 'redacted_thinking', data: part.redacted.value };
      if (part.signature?.origin === 'messages') return { type: 'thinking', thinking: part.text, signature: part.signature.value };
      if (part.text !== '' || part.signature || part.encrypted || part.redacted) {
        warnings.push({ field: path, message: 'reasoning from another provider cannot be replayed here and was dropped' });
      }
      return undefined;
    case 'refusal':
      return isBlank(part.text) ? undefined : { type: 'text', text: part.text };
    case 'native':
      if (part.protocol === 'messages') return { ...part.value, type: String(part.value.type) };
      warnings.push({
        field: path,
        message: `a ${part.protocol} native block (${String(part.value.type)}) cannot be sent to this provider`,
      });
      return undefined;
    default:
      return assertNever(part, 'content part');
  }
}

/** Sort key inside one message: results first for users; thinking first and calls last for the assistant. */
function rank(role: Role, block: MessagesBlock): number {
  if (role === 'user') return block.type === 'tool_result' ? 0 : 1;
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return 0;
  return block.type === 'tool_use' ? 2 : 1;
}

function toolUseIds(message: MessagesMessageParam | undefined): string[] {
  if (message?.role !== 'assistant') return [];
  return message.content.filter((block) => block.type === 'tool_use').map((block) => String(block.id));
}

/** A result whose call is not in the previous assistant turn would be rejected: keep its content as user text. */
function orphanResultBlocks(block: MessagesBlock): MessagesBlock[] {
  const inner = Array.isArray(block.content) ? (block.content as MessagesBlock[]) : [];
  const label: MessagesBlock = {
    type: 'text',
    text: `Result of tool call ${String(block.tool_use_id)}${block.is_error ? ' (error)' : ''}:`,
  };
  return [label, ...inner];
}

function pairToolResults(messages: MessagesMessageParam[], warnings: TranslationWarning[]): void {
  messages.forEach((message, k) => {
    if (message.role !== 'user') return;
    const calls = toolUseIds(messages[k - 1]);
    const callSet = new Set(calls);
    const content: MessagesBlock[] = [];
    const answered = new Set<string>();
    for (const block of message.content) {
      const id = String(block.tool_use_id);
      if (block.type !== 'tool_result') content.push(block);
      else if (callSet.has(id) && !answered.has(id)) {
        answered.add(id);
        content.push(block);
      } else {
        warnings.push({
          field: `messages[${k}]`,
          message: `tool result ${id} has no matching call in the previous assistant turn; sent as text`,
        });
        content.push(...orphanResultBlocks(block));
      }
    }
    const missing = calls.filter((id) => !answered.has(id));
    for (const id of missing) {
      warnings.push({ field: `messages[${k}]`, message: `tool call ${id} had no result; an error result was inserted` });
    }
    message.content = [
      ...missing.map((id): MessagesBlock => ({ type: 'tool_result', tool_use_id: id, is_error: true, content: MISSING_RESULT_TEXT })),
      ...content,
    ];
  });
}

export function encodeMessagesTurns(
  turns: readonly Turn[],
  toolNames: Record<string, string>,
  warnings: TranslationWarning[],
): MessagesMessageParam[] {
  const messages: MessagesMessageParam[] = [];
  turns.forEach((turn, i) => {
    const content: MessagesBlock[] = [];
    turn.parts.forEach((part, j) => {
      const block = encodePart(part, `turns[${i}].parts[${j}]`, toolNames, warnings);
      if (block) content.push(block);
    });
    if (content.length === 0) return;
    const last = messages.at(-1);
    // Consecutive turns of one role (Chat user + tool messages, split assistant turns) merge into one.
    if (last && last.role === turn.role) last.content.push(...content);
    else messages.push({ role: turn.role, content });
  });

  pairToolResults(messages, warnings);
  for (const message of messages) {
    const ranked = message.content.map((block, position) => ({ block, position, rank: rank(message.role, block) }));
    ranked.sort((a, b) => a.rank - b.rank || a.position - b.position);
    message.content = ranked.map((entry) => entry.block);
  }

  const final = messages.at(-1);
  if (final?.role === 'assistant') {
    // A prefilled final assistant turn may not end in whitespace.
    const lastBlock = final.content.at(-1);
    if (lastBlock?.type === 'text' && typeof lastBlock.text === 'string') {
      const trimmed = lastBlock.text.trimEnd();
      if (trimmed === '') final.content.pop();
      else lastBlock.text = trimmed;
      if (final.content.length === 0) messages.pop();
    }
  }

  if (messages[0]?.role === 'assistant') {
    warnings.push({ field: 'turns[0]', message: 'the conversation opened with the assistant; a user turn was inserted before it' });
    messages.unshift({ role: 'user', content: [{ type: 'text', text: PLACEHOLDER_USER_TEXT }] });
  }
  return messages;
}
