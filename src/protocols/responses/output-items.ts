/**
 * Builders of the client-facing output items, shared by the complete answer and the stream's
 * `output_item.done` / terminal events so both always carry the same shapes.
 */

export type OutputContent =
  { type: 'output_text'; text: string; annotations: unknown[]; logprobs: unknown[] } | { type: 'refusal'; refusal: string };

export type ItemStatus = 'in_progress' | 'completed';

export function outputTextContent(text: string): OutputContent {
  // `logprobs` is required by OpenAI's schema (and sent by OpenAI, empty unless asked for).
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

export function refusalContent(refusal: string): OutputContent {
  return { type: 'refusal', refusal };
}

export function messageItem(id: string, content: OutputContent[], status: ItemStatus): Record<string, unknown> {
  return { type: 'message', id, status, role: 'assistant', content };
}

export function reasoningItem(id: string, text: string, encryptedContent: string | undefined): Record<string, unknown> {
  return {
    type: 'reasoning',
    id,
    summary: text === '' ? [] : [{ type: 'summary_text', text }],
    ...(encryptedContent !== undefined ? { encrypted_content: encryptedContent } : {}),
  };
}

export function customToolCallItem(
  id: string,
  callId: string,
  name: { name: string; namespace?: string },
  input: string,
  status: ItemStatus,
): Record<string, unknown> {
  return { type: 'custom_tool_call', id, call_id: callId, ...name, input, status };
}

export function functionCallItem(
  id: string,
  callId: string,
  name: { name: string; namespace?: string },
  argumentsJson: string,
  status: ItemStatus,
): Record<string, unknown> {
  return { type: 'function_call', id, call_id: callId, ...name, arguments: argumentsJson, status };
}
