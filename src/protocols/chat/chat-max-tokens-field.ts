/**
 * Which field caps the output for a Chat upstream. OpenAI's reasoning models reject `max_tokens`
 * ("Use 'max_completion_tokens' instead") and every OpenAI model takes `max_completion_tokens`;
 * DeepSeek silently ignores `max_completion_tokens` and Moonshot / Mistral document `max_tokens`.
 * UpstreamTarget carries no vendor, so the OpenAI model names decide (a stopgap until it does).
 */
const OPENAI_MODEL = /^(gpt-|o\d|chatgpt-|codex-)/i;

export function chatMaxTokensField(upstreamModel: string): 'max_tokens' | 'max_completion_tokens' {
  return OPENAI_MODEL.test(upstreamModel) ? 'max_completion_tokens' : 'max_tokens';
}
