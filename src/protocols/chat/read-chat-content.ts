/** Pieces shared by the response and stream decoders: content (string or parts) and tool call fields. */
import type { ChatUpstreamContentPart } from './chat-upstream-schema';

/** Text and reasoning of a `content` that is a string, or parts (mistral reasoning models: `thinking` parts). */
export function readChatContent(content: string | ChatUpstreamContentPart[] | null | undefined): { text: string; reasoning: string } {
  if (typeof content === 'string') return { text: content, reasoning: '' };
  let text = '';
  let reasoning = '';
  for (const part of content ?? []) {
    if (part.type === 'thinking') {
      for (const piece of part.thinking ?? []) reasoning += piece.text ?? '';
    } else if (typeof part.text === 'string') {
      text += part.text;
    }
  }
  return { text, reasoning };
}

/** Arguments are a JSON string in Chat; a few vendors send an object. Missing means nothing yet. */
export function readChatArguments(value: string | Record<string, unknown> | null | undefined): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
