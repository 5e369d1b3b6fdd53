import type { Opaque } from './opaque';
import type { Protocol } from './protocol';

/** Messages `cache_control`; kept only when the target is the Messages family. */
export interface CacheHint {
  type: 'ephemeral';
  ttl?: string;
}

export type MediaSource =
  | { kind: 'base64'; mediaType: string; data: string }
  | { kind: 'url'; url: string }
  | { kind: 'file'; fileId?: string; uri?: string; mediaType?: string };

export interface TextPart {
  type: 'text';
  text: string;
  cacheHint?: CacheHint;
}

export interface ImagePart {
  type: 'image';
  source: MediaSource;
  detail?: 'low' | 'high' | 'auto';
  cacheHint?: CacheHint;
}

export interface DocumentPart {
  type: 'document';
  source: MediaSource;
  title?: string;
  cacheHint?: CacheHint;
}

export interface ToolCallPart {
  type: 'tool_call';
  id: string;
  name: string;
  /** The raw JSON string of the arguments; parsed lazily, never dropped when unparsable. */
  argumentsJson: string;
  /** Generate-Content `thoughtSignature` carried on the call's part. */
  signature?: Opaque;
}

export interface ToolResultPart {
  type: 'tool_result';
  callId: string;
  /** Needed by Generate-Content; filled from the matching call when the client did not send it. */
  name?: string;
  content: Array<TextPart | ImagePart>;
  isError?: boolean;
}

export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  /** Messages `signature`, Generate-Content `thoughtSignature` on a thought part. */
  signature?: Opaque;
  /** Messages `redacted_thinking.data`. */
  redacted?: Opaque;
  /** Responses `encrypted_content`. */
  encrypted?: Opaque;
  /** Responses reasoning item id (`rs_…`). */
  itemId?: Opaque;
}

export interface RefusalPart {
  type: 'refusal';
  text: string;
}

/**
 * A block that only its own protocol understands (server tool use and results such as
 * `web_search`, code execution). Passed through to the same protocol, reported and dropped elsewhere.
 */
export interface NativePart {
  type: 'native';
  protocol: Protocol;
  value: Record<string, unknown>;
}

export type ContentPart = TextPart | ImagePart | DocumentPart | ToolCallPart | ToolResultPart | ReasoningPart | RefusalPart | NativePart;

export type Role = 'user' | 'assistant';

/**
 * One conversation turn. Tool results travel as parts of a user turn (as in Messages); codecs
 * whose protocol puts them elsewhere (Chat `role: tool`, Responses items) split and join them.
 * Consecutive turns of the same role are allowed in the IR; encoders that need alternation merge them.
 */
export interface Turn {
  role: Role;
  parts: ContentPart[];
}
