/** One upstream output item → IR content parts (shared by the body decoder and stream fallbacks). */
import type { ContentPart, ReasoningPart } from '../../ir/parts';
import { restoreToolName } from '../shared/tool-names';
import { expandParallelToolCall } from './expand-parallel-tool-call';
import { outputContentSchema, outputItemSchema, type OutputItem } from './response-schema';

/** Summary parts joined by a blank line; raw reasoning text when a provider sends no summary. */
export function reasoningText(item: OutputItem): string {
  const summary = (item.summary ?? []).map((part) => part.text ?? '').filter((text) => text !== '');
  if (summary.length > 0) return summary.join('\n\n');
  return (item.content ?? [])
    .map((raw) => outputContentSchema.safeParse(raw))
    .filter((parsed) => parsed.success && parsed.data.type === 'reasoning_text')
    .map((parsed) => (parsed.success ? (parsed.data.text ?? '') : ''))
    .join('');
}

export function reasoningPart(item: OutputItem, text: string): ReasoningPart {
  return {
    type: 'reasoning',
    text,
    ...(item.encrypted_content ? { encrypted: { origin: 'responses' as const, value: item.encrypted_content } } : {}),
    ...(item.id ? { itemId: { origin: 'responses' as const, value: item.id } } : {}),
  };
}

export function decodeOutputItem(raw: unknown, toolNames: Record<string, string>): ContentPart[] {
  const parsed = outputItemSchema.safeParse(raw);
  if (!parsed.success) return [];
  const item = parsed.data;
  switch (item.type) {
    case 'message': {
      const parts: ContentPart[] = [];
      for (const rawContent of item.content ?? []) {
        const content = outputContentSchema.safeParse(rawContent);
        if (!content.success) continue;
        if (content.data.type === 'output_text') parts.push({ type: 'text', text: content.data.text ?? '' });
        else if (content.data.type === 'refusal') parts.push({ type: 'refusal', text: content.data.refusal ?? '' });
      }
      return parts;
    }
    case 'reasoning':
      return [reasoningPart(item, reasoningText(item))];
    case 'function_call': {
      const id = item.call_id ?? item.id ?? '';
      const name = item.name ?? '';
      const argumentsJson = item.arguments ?? '';
      return (
        expandParallelToolCall(id, name, argumentsJson, toolNames) ?? [
          { type: 'tool_call', id, name: restoreToolName(name, toolNames), argumentsJson },
        ]
      );
    }
    default:
      // Server-side tool items (web search, file search, code interpreter…): this protocol's own.
      return [{ type: 'native', protocol: 'responses', value: { ...(raw as Record<string, unknown>) } }];
  }
}
