/** The Chat Completions shapes this codec writes (to clients and to providers): plain types, not schemas. */

export interface ChatUsageBody {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

export interface ChatToolCallBody {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatAssistantMessageBody {
  role: 'assistant';
  content: string | null;
  refusal: string | null;
  tool_calls?: ChatToolCallBody[];
  /** Compat-vendor field (deepseek, moonshot, xai); ignored by the official SDK, read by agent CLIs. */
  reasoning_content?: string;
  /** This gateway's field: opaque reasoning values of another protocol, wrapped (see chat-reasoning-envelope). */
  reasoning_signature?: string;
}

export interface ChatCompletionBody {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: ChatAssistantMessageBody;
    logprobs: null;
    finish_reason: string;
  }>;
  usage: ChatUsageBody;
}

export interface ChatChunkToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

export interface ChatChunkDelta {
  role?: 'assistant';
  content?: string;
  refusal?: string;
  reasoning_content?: string;
  reasoning_signature?: string;
  tool_calls?: ChatChunkToolCallDelta[];
}

export interface ChatChunkBody {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{ index: number; delta: ChatChunkDelta; logprobs: null; finish_reason: string | null }>;
  usage?: ChatUsageBody | null;
}

export interface ChatErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** The `reasoning_effort` values the Chat protocol knows. */
export type ChatReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/** A message this codec sends to a Chat upstream. */
export type ChatOutgoingUserPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'low' | 'high' | 'auto' } }
  | { type: 'file'; file: { file_data?: string; file_id?: string; filename?: string } };

export type ChatOutgoingMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatOutgoingUserPart[] }
  | {
      role: 'assistant';
      content: string | null;
      refusal?: string;
      tool_calls?: ChatToolCallBody[];
      reasoning_content?: string;
    }
  | { role: 'tool'; tool_call_id: string; content: string };
