/** A planned answer written as a Responses object, or as its exact event stream. */
import { chunkArguments, chunkText } from '../answer/chunk-text';
import { encryptedReasoning } from '../answer/signatures';
import type { AnswerPlan } from '../answer/plan-answer';
import { isRecord, recordField, stringField, type JsonRecord } from '../json';
import { stableId } from '../ids';
import { sseFrame } from '../http/stream';

export interface ResponsesAnswer {
  id: string;
  createdAt: number;
  model: string;
  plan: AnswerPlan;
  inputTokens: number;
  cachedTokens: number;
  /** The request, echoed in the response's settings fields. */
  request: JsonRecord;
  includeEncrypted: boolean;
  summary: boolean;
  itemIds: { reasoning: string; message: string; calls: string[] };
  callIds: string[];
}

type Item = Record<string, unknown>;

export function outputItems(answer: ResponsesAnswer): Item[] {
  const { plan } = answer;
  const items: Item[] = [];
  if (plan.reasoningText !== null) {
    const item: Item = { id: answer.itemIds.reasoning, type: 'reasoning' };
    if (answer.includeEncrypted) item.encrypted_content = encryptedReasoning(plan.reasoningText);
    item.summary = answer.summary ? [{ type: 'summary_text', text: plan.reasoningText }] : [];
    items.push(item);
  }
  if (plan.toolCalls.length === 0) {
    items.push({
      id: answer.itemIds.message,
      type: 'message',
      status: plan.finish === 'max_tokens' ? 'incomplete' : 'completed',
      content: [{ type: 'output_text', annotations: [], logprobs: [], text: plan.text }],
      role: 'assistant',
    });
  }
  plan.toolCalls.forEach((call, index) => {
    const namespace = call.namespace === undefined ? {} : { namespace: call.namespace };
    items.push(
      call.custom
        ? {
            id: answer.itemIds.calls[index],
            type: 'custom_tool_call',
            status: 'completed',
            call_id: answer.callIds[index],
            input: call.argumentsJson,
            name: call.name,
            ...namespace,
          }
        : {
            id: answer.itemIds.calls[index],
            type: 'function_call',
            status: 'completed',
            arguments: call.argumentsJson,
            call_id: answer.callIds[index],
            name: call.name,
            ...namespace,
          },
    );
  });
  return items;
}

function echoedTools(request: JsonRecord): unknown[] {
  const tools = Array.isArray(request.tools) ? request.tools : [];
  return tools.map((tool) => {
    if (!isRecord(tool) || tool.type !== 'function') return tool;
    return {
      type: 'function',
      description: stringField(tool, 'description') ?? null,
      name: tool.name,
      parameters: tool.parameters ?? null,
      strict: tool.strict ?? true,
    };
  });
}

type Phase = 'in_progress' | 'completed' | 'incomplete' | 'failed';

const SERVER_ERROR = { code: 'server_error', message: 'The server had an error while processing your request. Sorry about that!' };

export function responseObject(answer: ResponsesAnswer, phase: Phase, output: Item[], failure = SERVER_ERROR): Record<string, unknown> {
  const { request, plan } = answer;
  const reasoning = recordField(request, 'reasoning');
  const text = recordField(request, 'text');
  const done = phase === 'completed' || phase === 'incomplete';
  return {
    id: answer.id,
    object: 'response',
    created_at: answer.createdAt,
    status: phase,
    background: false,
    completed_at: done ? Math.floor(Date.now() / 1000) : null,
    error: phase === 'failed' ? failure : null,
    incomplete_details: phase === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    max_tool_calls: null,
    model: answer.model,
    output,
    parallel_tool_calls: request.parallel_tool_calls !== false,
    previous_response_id: request.previous_response_id ?? null,
    prompt_cache_key: null,
    prompt_cache_retention: null,
    reasoning: { effort: reasoning?.effort ?? null, summary: reasoning?.summary ?? null },
    safety_identifier: null,
    service_tier: done ? 'default' : 'auto',
    store: request.store !== false,
    temperature: request.temperature ?? 1,
    text: { format: text?.format ?? { type: 'text' }, verbosity: text?.verbosity ?? 'medium' },
    tool_choice: request.tool_choice ?? 'auto',
    tools: echoedTools(request),
    top_logprobs: 0,
    top_p: request.top_p ?? 1,
    truncation: 'disabled',
    usage: done
      ? {
          input_tokens: answer.inputTokens,
          input_tokens_details: { cached_tokens: answer.cachedTokens, cache_write_tokens: 0 },
          output_tokens: plan.outputTokens,
          output_tokens_details: { reasoning_tokens: plan.reasoningTokens },
          total_tokens: answer.inputTokens + plan.outputTokens,
        }
      : null,
    user: null,
    metadata: request.metadata ?? {},
  };
}

export function finalPhase(plan: AnswerPlan): 'completed' | 'incomplete' {
  return plan.finish === 'max_tokens' ? 'incomplete' : 'completed';
}

export function responsesBody(answer: ResponsesAnswer): Record<string, unknown> {
  return responseObject(answer, finalPhase(answer.plan), outputItems(answer));
}

export function responsesFrames(answer: ResponsesAnswer): string[] {
  const frames: string[] = [];
  const event = (type: string, fields: Record<string, unknown>): void => {
    frames.push(sseFrame({ type, sequence_number: frames.length, ...fields }, type));
  };
  const obfuscation = (): string => stableId(`o${frames.length}`, 3 + (frames.length % 12));
  event('response.created', { response: responseObject(answer, 'in_progress', []) });
  event('response.in_progress', { response: responseObject(answer, 'in_progress', []) });
  const items = outputItems(answer);
  items.forEach((item, outputIndex) => {
    const itemId = item.id;
    switch (item.type) {
      case 'reasoning': {
        event('response.output_item.added', { output_index: outputIndex, item: { ...item, summary: [] } });
        const summary = Array.isArray(item.summary) && isRecord(item.summary[0]) ? String(item.summary[0].text) : null;
        if (summary !== null) {
          const base = { item_id: itemId, output_index: outputIndex, summary_index: 0 };
          event('response.reasoning_summary_part.added', { ...base, part: { type: 'summary_text', text: '' } });
          for (const piece of chunkText(summary, null))
            event('response.reasoning_summary_text.delta', { ...base, delta: piece, obfuscation: obfuscation() });
          event('response.reasoning_summary_text.done', { ...base, text: summary });
          event('response.reasoning_summary_part.done', { ...base, part: { type: 'summary_text', text: summary } });
        }
        break;
      }
      case 'message': {
        const text = answer.plan.text;
        const base = { item_id: itemId, output_index: outputIndex, content_index: 0 };
        event('response.output_item.added', {
          output_index: outputIndex,
          item: { id: itemId, type: 'message', status: 'in_progress', content: [], role: 'assistant' },
        });
        event('response.content_part.added', { ...base, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } });
        for (const piece of chunkText(text, answer.plan.chunkSize))
          event('response.output_text.delta', { ...base, delta: piece, logprobs: [], obfuscation: obfuscation() });
        event('response.output_text.done', { ...base, text, logprobs: [] });
        event('response.content_part.done', { ...base, part: { type: 'output_text', annotations: [], logprobs: [], text } });
        break;
      }
      case 'custom_tool_call': {
        const input = String(item.input);
        event('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', input: '' } });
        for (const piece of chunkArguments(input)) {
          event('response.custom_tool_call_input.delta', {
            item_id: itemId,
            output_index: outputIndex,
            delta: piece,
            obfuscation: obfuscation(),
          });
        }
        event('response.custom_tool_call_input.done', { item_id: itemId, output_index: outputIndex, input });
        break;
      }
      default: {
        const args = String(item.arguments);
        event('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', arguments: '' } });
        for (const piece of chunkArguments(args)) {
          event('response.function_call_arguments.delta', {
            item_id: itemId,
            output_index: outputIndex,
            delta: piece,
            obfuscation: obfuscation(),
          });
        }
        event('response.function_call_arguments.done', { item_id: itemId, output_index: outputIndex, name: item.name, arguments: args });
      }
    }
    event('response.output_item.done', { output_index: outputIndex, item });
  });
  const phase = finalPhase(answer.plan);
  event(`response.${phase}`, { response: responseObject(answer, phase, items) });
  return frames;
}

/** An `error` event then `response.failed`, numbered after the `emitted` frames already sent. */
export function responsesErrorFrames(answer: ResponsesAnswer, emitted: number): string[] {
  const message = 'The server had an error while processing your request. Sorry about that!';
  return [
    sseFrame(
      { type: 'error', sequence_number: emitted, error: { type: 'server_error', code: 'server_error', message, param: null } },
      'error',
    ),
    sseFrame({ type: 'response.failed', sequence_number: emitted + 1, response: responseObject(answer, 'failed', []) }, 'response.failed'),
  ];
}

/**
 * An over-long prompt of a streamed request, as OpenAI refuses it: `response.created`, then the
 * `error` event (its fields at the top level) and `response.failed` carrying the same code.
 */
export function responsesOverflowFrames(answer: ResponsesAnswer, message: string): string[] {
  const code = 'context_length_exceeded';
  return [
    sseFrame({ type: 'response.created', sequence_number: 0, response: responseObject(answer, 'in_progress', []) }, 'response.created'),
    sseFrame({ type: 'error', sequence_number: 1, code, message, param: 'input' }, 'error'),
    sseFrame(
      { type: 'response.failed', sequence_number: 2, response: responseObject(answer, 'failed', [], { code, message }) },
      'response.failed',
    ),
  ];
}
