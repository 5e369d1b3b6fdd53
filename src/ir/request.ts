import type { CacheHint, Turn } from './parts';
import type { Protocol } from './protocol';

export interface SystemPart {
  type: 'text';
  text: string;
  cacheHint?: CacheHint;
}

/** JSON Schema as given by the client; sanitized per target by the upstream codecs. */
export type JsonSchema = Record<string, unknown>;

export interface ToolDefinition {
  name: string;
  description?: string;
  parameters: JsonSchema;
  strict?: boolean;
  cacheHint?: CacheHint;
  /** A member of a Responses `namespace` tool: `name` is then `<namespace>__<member>`. */
  namespace?: { name: string; member: string };
  /** A Responses `custom` (freeform) tool, carried as a function of one string parameter `input`. */
  freeform?: boolean;
}

/** A provider built-in tool (e.g. `web_search`), meaningful only to its own protocol. */
export interface BuiltinTool {
  protocol: Protocol;
  value: Record<string, unknown>;
}

export type ToolChoice = { type: 'auto' } | { type: 'none' } | { type: 'required' } | { type: 'tool'; name: string };

export interface Sampling {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  n?: number;
  logprobs?: boolean;
  topLogprobs?: number;
}

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: JsonSchema; strict?: boolean; description?: string };

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface ReasoningConfig {
  effort?: ReasoningEffort;
  budgetTokens?: number;
  /** Whether reasoning text (summaries, thoughts) should be returned to the client. */
  includeThoughts?: boolean;
  summary?: 'auto' | 'concise' | 'detailed';
  /** Explicitly disabled (Messages `thinking: {type: disabled}`, Generate-Content budget 0). */
  disabled?: boolean;
}

/**
 * The canonical request. Decoders fill what their protocol carries; encoders read what theirs
 * can express and report the rest as warnings.
 */
export interface IrRequest {
  /** The catalog slug the client asked for. */
  model: string;
  system: SystemPart[];
  turns: Turn[];
  tools: ToolDefinition[];
  builtinTools: BuiltinTool[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  sampling: Sampling;
  responseFormat?: ResponseFormat;
  reasoning?: ReasoningConfig;
  stream: boolean;
  /** Chat `stream_options.include_usage`: the client wants the usage chunk. */
  includeUsage?: boolean;
  user?: string;
  metadata?: Record<string, string>;
  /** Responses `previous_response_id`; the relay resolves it into `turns` before encoding. */
  previousResponseId?: string;
  /** Responses `store` (default true). */
  store?: boolean;
  /** The conversation's session identity (set by routing): sent as `prompt_cache_key` where the target takes one. */
  cacheKey?: string;
  /**
   * Fields of the inbound protocol the IR has no place for (beta fields and the like), replayed
   * only when the upstream protocol is the same.
   */
  extensions?: { protocol: Protocol; fields: Record<string, unknown> };
}
