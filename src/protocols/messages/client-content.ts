/**
 * IR answer parts → the content blocks a Messages client sees. Shared by the complete answer and
 * the stream encoder so that both show exactly the same blocks, ids and signatures.
 */
import { assertNever } from '../../ir/assert-never';
import type { ContentPart, ReasoningPart, ToolCallPart } from '../../ir/parts';
import { argumentsToObject } from '../shared/tool-arguments';
import { encodeClientThinkingSignature, encodeClientToolUseId } from './client-opaque';
import type { MessagesBlock } from './wire-types';

/** A thinking or redacted_thinking block, or nothing when the part carries neither text nor opaque. */
export function clientReasoningBlock(part: ReasoningPart): MessagesBlock | undefined {
  if (part.redacted?.origin === 'messages') return { type: 'redacted_thinking', data: part.redacted.value };
  const signature = encodeClientThinkingSignature(part);
  if (part.text === '' && signature === '') return undefined;
  return { type: 'thinking', thinking: part.text, signature };
}

/**
 * Another protocol's signature with no thinking text (Generate-Content signs its final, empty text
 * part). After an answer block it would be a thinking block where Messages allows none, ending the
 * turn; those signatures need no replay (the ones that must be replayed ride on the tool_use id),
 * so it is left out.
 */
export function isSignatureOnly(part: Pick<ReasoningPart, 'text' | 'redacted' | 'signature'>): boolean {
  return part.text === '' && part.redacted === undefined && part.signature !== undefined && part.signature.origin !== 'messages';
}

export function clientToolUseBlock(part: ToolCallPart): MessagesBlock {
  return {
    type: 'tool_use',
    id: encodeClientToolUseId(part.id, part.signature),
    name: part.name,
    input: argumentsToObject(part.argumentsJson),
  };
}

/**
 * Server-tool blocks with an `input` stream it as JSON deltas, as the real API does; the others
 * arrive whole in `content_block_start`.
 */
export function streamsInput(block: MessagesBlock): boolean {
  return block.type === 'server_tool_use' || block.type === 'mcp_tool_use';
}

export function encodeClientContent(parts: readonly ContentPart[]): MessagesBlock[] {
  const blocks: MessagesBlock[] = [];
  for (const part of parts) {
    switch (part.type) {
      case 'reasoning': {
        const block = clientReasoningBlock(part);
        if (block && !(blocks.length > 0 && isSignatureOnly(part))) blocks.push(block);
        break;
      }
      case 'text':
        if (part.text !== '') blocks.push({ type: 'text', text: part.text });
        break;
      // Messages has no refusal block: the refusal is the answer's text (stop_reason says refusal).
      case 'refusal':
        if (part.text !== '') blocks.push({ type: 'text', text: part.text });
        break;
      case 'tool_call':
        blocks.push(clientToolUseBlock(part));
        break;
      case 'native':
        // Another protocol's server-tool blocks mean nothing to a Messages client.
        if (part.protocol === 'messages') blocks.push({ ...part.value, type: String(part.value.type) });
        break;
      // Answers do not carry these; a Messages assistant message cannot hold them.
      case 'image':
      case 'document':
      case 'tool_result':
        break;
      default:
        assertNever(part, 'content part');
    }
  }
  return blocks;
}
