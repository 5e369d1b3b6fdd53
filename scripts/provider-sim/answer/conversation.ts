/**
 * The simulator's own neutral reading of a request, built by each protocol's parser. It is not the
 * gateway's IR (the simulator must stay an independent reading of the real APIs); it holds only
 * what deciding and sizing the answer needs.
 */
export interface SimImage {
  mediaType: string;
  source: 'base64' | 'url' | 'file';
}

export interface SimToolCall {
  id: string;
  name: string;
}

export interface SimToolResult {
  callId: string;
  /** The result's text as the answer quotes it. */
  text: string;
}

export interface SimTurn {
  role: 'user' | 'assistant';
  texts: string[];
  images: SimImage[];
  toolCalls: SimToolCall[];
  toolResults: SimToolResult[];
}

export interface SimTool {
  name: string;
  schema: unknown;
  /** Responses: a member of a `namespace` tool; its calls name the namespace too. */
  namespace?: string;
  /** Responses `custom` (freeform) tool: called with a string input, not JSON arguments. */
  custom?: boolean;
}

export type SimToolChoice = { type: 'auto' } | { type: 'none' } | { type: 'required' } | { type: 'named'; name: string };

export type SimOutputFormat = { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; schema: unknown };

/**
 * One unit of the prompt for counting and caching: a system block, a tool, a message or block.
 * `key` is a stable serialization of what was sent (for prefix caching), `tokens` its count.
 */
export interface PromptSegment {
  key: string;
  tokens: number;
  /** Messages `cache_control` on this block: its prefix is a cache breakpoint. */
  cacheBreakpoint: '5m' | '1h' | null;
}

export interface SimConversation {
  turns: SimTurn[];
  tools: SimTool[];
  toolChoice: SimToolChoice;
  parallelToolCalls: boolean;
  maxOutputTokens: number;
  stopSequences: string[];
  outputFormat: SimOutputFormat;
  reasoning: boolean;
  segments: PromptSegment[];
}

export function emptyTurn(role: 'user' | 'assistant'): SimTurn {
  return { role, texts: [], images: [], toolCalls: [], toolResults: [] };
}

export function totalInputTokens(conversation: SimConversation): number {
  let total = 0;
  for (const segment of conversation.segments) total += segment.tokens;
  return total;
}
