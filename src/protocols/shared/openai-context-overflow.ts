/**
 * Recognises the context-overflow refusal of OpenAI and of the OpenAI-compatible vendors (Chat and
 * Responses upstreams), with the token numbers when the wording carries them. Each vendor words it
 * differently: OpenAI's `context_length_exceeded` code, DeepSeek's and vLLM's "maximum context
 * length … you requested", xAI's "maximum prompt length", Mistral's "too large for model with",
 * Moonshot's "exceeded model token limit".
 */
import type { ContextOverflow } from '../../errors/gateway-error';

interface Pattern {
  pattern: RegExp;
  /** Capture group of the prompt's tokens and of the limit (0: not in this wording). */
  input: number;
  limit: number;
}

const PATTERNS: readonly Pattern[] = [
  {
    pattern: /maximum context length is (\d+) tokens\. However, (?:your messages resulted in|you requested) (\d+) tokens/i,
    input: 2,
    limit: 1,
  },
  { pattern: /maximum prompt length is (\d+) but the request contains (\d+) tokens/i, input: 2, limit: 1 },
  { pattern: /prompt contains (\d+) tokens.*too large for model with (\d+) maximum context length/i, input: 1, limit: 2 },
  { pattern: /exceeded model token limit: (\d+)/i, input: 0, limit: 1 },
  { pattern: /prompt is too long: (\d+) tokens > (\d+) maximum/i, input: 1, limit: 2 },
  {
    pattern: /(?:exceeds|exceeded) the (?:model's )?context (?:window|length)|context_length_exceeded|prompt is too long/i,
    input: 0,
    limit: 0,
  },
];

export function openAiContextOverflow(message: string | undefined, code: string | undefined): ContextOverflow | undefined {
  const text = message ?? '';
  for (const { pattern, input, limit } of PATTERNS) {
    const match = pattern.exec(text);
    if (!match) continue;
    return {
      ...(input > 0 ? { inputTokens: Number(match[input]) } : {}),
      ...(limit > 0 ? { maxTokens: Number(match[limit]) } : {}),
    };
  }
  return code === 'context_length_exceeded' ? {} : undefined;
}
