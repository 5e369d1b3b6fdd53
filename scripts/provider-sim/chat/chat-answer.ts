/** A planned answer written as a Chat Completions body, or as its exact chunk stream. */
import { chunkArguments, chunkText } from '../answer/chunk-text';
import type { AnswerPlan, SimFinish } from '../answer/plan-answer';
import { stableId } from '../ids';
import { sseFrame } from '../http/stream';

export interface ChatAnswer {
  id: string;
  created: number;
  model: string;
  plan: AnswerPlan;
  choices: number;
  inputTokens: number;
  cachedTokens: number;
  visibleReasoning: boolean;
  toolIds: string[];
}

export const SYSTEM_FINGERPRINT = 'fp_sim0000001';

export function chatFinishReason(finish: SimFinish): string {
  switch (finish) {
    case 'max_tokens':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    default:
      return 'stop';
  }
}

function usage(answer: ChatAnswer): Record<string, unknown> {
  const completion = answer.plan.outputTokens * answer.choices;
  return {
    prompt_tokens: answer.inputTokens,
    completion_tokens: completion,
    total_tokens: answer.inputTokens + completion,
    prompt_tokens_details: { cached_tokens: answer.cachedTokens, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: answer.plan.reasoningTokens * answer.choices,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function toolCalls(answer: ChatAnswer): Record<string, unknown>[] {
  return answer.plan.toolCalls.map((call, index) => ({
    id: answer.toolIds[index],
    type: 'function',
    function: { name: call.name, arguments: call.argumentsJson },
  }));
}

export function chatBody(answer: ChatAnswer): Record<string, unknown> {
  const { plan } = answer;
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: plan.toolCalls.length > 0 && plan.text === '' ? null : plan.text,
    refusal: null,
    annotations: [],
  };
  if (answer.visibleReasoning && plan.reasoningText !== null) message.reasoning_content = plan.reasoningText;
  if (plan.toolCalls.length > 0) message.tool_calls = toolCalls(answer);
  const choices = [];
  for (let index = 0; index < answer.choices; index++) {
    choices.push({ index, message, logprobs: null, finish_reason: chatFinishReason(plan.finish) });
  }
  return {
    id: answer.id,
    object: 'chat.completion',
    created: answer.created,
    model: answer.model,
    choices,
    usage: usage(answer),
    service_tier: 'default',
    system_fingerprint: SYSTEM_FINGERPRINT,
  };
}

export interface ChatStreamOptions {
  includeUsage: boolean;
  includeObfuscation: boolean;
}

export function chatFrames(answer: ChatAnswer, options: ChatStreamOptions): string[] {
  const frames: string[] = [];
  const chunk = (choices: unknown[], usageValue?: unknown): void => {
    const data: Record<string, unknown> = {
      id: answer.id,
      object: 'chat.completion.chunk',
      created: answer.created,
      model: answer.model,
      service_tier: 'default',
      system_fingerprint: SYSTEM_FINGERPRINT,
      choices,
    };
    if (options.includeUsage) data.usage = usageValue ?? null;
    // OpenAI pads chunks with random characters so their size does not leak the text's.
    if (options.includeObfuscation) data.obfuscation = stableId(String(frames.length), 4 + (frames.length % 9));
    frames.push(sseFrame(data));
  };
  const delta = (index: number, value: Record<string, unknown>, finish: string | null = null): void => {
    chunk([{ index, delta: value, logprobs: null, finish_reason: finish }]);
  };
  const { plan } = answer;
  for (let index = 0; index < answer.choices; index++) {
    const hasText = plan.text !== '' || plan.toolCalls.length === 0;
    delta(index, { role: 'assistant', content: hasText ? '' : null, refusal: null });
    if (answer.visibleReasoning && plan.reasoningText !== null) {
      for (const piece of chunkText(plan.reasoningText, null)) delta(index, { reasoning_content: piece });
    }
    for (const piece of chunkText(plan.text, plan.chunkSize)) delta(index, { content: piece });
    plan.toolCalls.forEach((call, callIndex) => {
      delta(index, {
        tool_calls: [{ index: callIndex, id: answer.toolIds[callIndex], type: 'function', function: { name: call.name, arguments: '' } }],
      });
      for (const piece of chunkArguments(call.argumentsJson))
        delta(index, { tool_calls: [{ index: callIndex, function: { arguments: piece } }] });
    });
    delta(index, {}, chatFinishReason(plan.finish));
  }
  if (options.includeUsage) chunk([], usage(answer));
  frames.push('data: [DONE]\n\n');
  return frames;
}

export function chatErrorFrames(): string[] {
  return [
    sseFrame({
      error: {
        message: 'The server had an error while processing your request. Sorry about that!',
        type: 'server_error',
        param: null,
        code: null,
      },
    }),
  ];
}
