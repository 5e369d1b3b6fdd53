/** A planned answer written as a Messages response body, or as its exact event stream. */
import { chunkArguments, chunkText } from '../answer/chunk-text';
import { thinkingSignature } from '../answer/signatures';
import type { AnswerPlan } from '../answer/plan-answer';
import type { ExplicitCacheUsage } from '../answer/prompt-cache';
import { sseFrame } from '../http/stream';

export interface MessagesAnswer {
  id: string;
  model: string;
  plan: AnswerPlan;
  /** All input tokens; the cache figures are carved out of it. */
  inputTokens: number;
  cache: ExplicitCacheUsage;
  toolIds: string[];
}

type ContentBlock = Record<string, unknown>;

function contentBlocks(answer: MessagesAnswer): ContentBlock[] {
  const { plan } = answer;
  const blocks: ContentBlock[] = [];
  if (plan.reasoningText !== null)
    blocks.push({ type: 'thinking', thinking: plan.reasoningText, signature: thinkingSignature(plan.reasoningText) });
  if (plan.text !== '') blocks.push({ type: 'text', text: plan.text });
  plan.toolCalls.forEach((call, index) =>
    blocks.push({ type: 'tool_use', id: answer.toolIds[index], name: call.name, input: call.arguments }),
  );
  return blocks;
}

function stopReason(plan: AnswerPlan): string {
  return plan.finish;
}

/**
 * Usage at `message_start` (output not known yet: 1) or final. Thinking has no counter of its own:
 * the real API counts it inside `output_tokens` (captures/messages/anthropic-clear-thinking.1.*).
 */
function usage(answer: MessagesAnswer, final: boolean): Record<string, unknown> {
  const { cache } = answer;
  return {
    input_tokens: answer.inputTokens - cache.read - cache.write,
    cache_creation_input_tokens: cache.write,
    cache_read_input_tokens: cache.read,
    cache_creation: {
      ephemeral_5m_input_tokens: cache.writeTtl === '5m' ? cache.write : 0,
      ephemeral_1h_input_tokens: cache.writeTtl === '1h' ? cache.write : 0,
    },
    output_tokens: final ? answer.plan.outputTokens : 1,
    service_tier: 'standard',
    inference_geo: 'not_available',
  };
}

export function messagesBody(answer: MessagesAnswer): Record<string, unknown> {
  return {
    model: answer.model,
    id: answer.id,
    type: 'message',
    role: 'assistant',
    content: contentBlocks(answer),
    stop_reason: stopReason(answer.plan),
    stop_sequence: answer.plan.stopSequence,
    usage: usage(answer, true),
  };
}

export function messagesFrames(answer: MessagesAnswer): string[] {
  const frames: string[] = [];
  const event = (data: Record<string, unknown>): void => {
    frames.push(sseFrame(data, String(data.type)));
  };
  event({
    type: 'message_start',
    message: {
      model: answer.model,
      id: answer.id,
      type: 'message',
      role: 'assistant',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usage(answer, false),
    },
  });
  contentBlocks(answer).forEach((block, index) => {
    const start = (contentBlock: Record<string, unknown>): void => {
      event({ type: 'content_block_start', index, content_block: contentBlock });
      // The API sends one ping, right after the first block opens.
      if (index === 0) event({ type: 'ping' });
    };
    switch (block.type) {
      case 'thinking': {
        start({ type: 'thinking', thinking: '', signature: '' });
        for (const piece of chunkText(String(block.thinking), null))
          event({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: piece } });
        event({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
        break;
      }
      case 'text': {
        start({ type: 'text', text: '' });
        for (const piece of chunkText(String(block.text), answer.plan.chunkSize))
          event({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
        break;
      }
      default: {
        start({ type: 'tool_use', id: block.id, name: block.name, input: {} });
        event({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '' } });
        const json = JSON.stringify(block.input);
        if (json !== '{}')
          for (const piece of chunkArguments(json))
            event({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
      }
    }
    event({ type: 'content_block_stop', index });
  });
  const { cache } = answer;
  event({
    type: 'message_delta',
    delta: { stop_reason: stopReason(answer.plan), stop_sequence: answer.plan.stopSequence },
    usage: {
      input_tokens: answer.inputTokens - cache.read - cache.write,
      cache_creation_input_tokens: cache.write,
      cache_read_input_tokens: cache.read,
      output_tokens: answer.plan.outputTokens,
    },
  });
  event({ type: 'message_stop' });
  return frames;
}

export function messagesErrorFrames(): string[] {
  return [sseFrame({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, 'error')];
}
