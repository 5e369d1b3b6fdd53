/** Shapes of what this codec writes on the Messages wire (our own outputs: plain types, no zod). */
export interface MessagesCacheControl {
  type: 'ephemeral';
  ttl?: string;
}

/** Any content block; `type` drives everything, the rest depends on it. */
export interface MessagesBlock {
  type: string;
  [field: string]: unknown;
}

export interface MessagesMessageParam {
  role: 'user' | 'assistant';
  content: MessagesBlock[];
}

/** The client-facing usage of the interface (section 2.3), whatever model answered. */
export interface MessagesUsageBody {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export interface MessagesResponseBody {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: MessagesBlock[];
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: MessagesUsageBody;
  [field: string]: unknown;
}

export const MESSAGES_API_VERSION = '2023-06-01';
export const MESSAGES_PATH = '/v1/messages';
