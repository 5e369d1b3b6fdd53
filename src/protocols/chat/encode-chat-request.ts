/** IR request → a Chat Completions provider request (families 2 and 4-8 speak Chat). */
import { GatewayError } from '../../errors/gateway-error';
import type { IrRequest, ReasoningConfig, ResponseFormat, ToolChoice } from '../../ir/request';
import type { TranslationWarning } from '../../ir/warning';
import type { CodecContext, EncodedUpstreamRequest, UpstreamTarget } from '../codec';
import { budgetToEffort } from '../shared/reasoning-budget';
import { clampTemperature } from '../shared/temperature';
import { sanitizeToolName } from '../shared/tool-names';
import { chatMaxTokensField } from './chat-max-tokens-field';
import { prepareStrictSchema } from './chat-strict-schema';
import type { ChatReasoningEffort } from './chat-wire-types';
import { encodeChatMessages } from './encode-chat-messages';

export const CHAT_COMPLETIONS_PATH = '/v1/chat/completions';

function encodeToolChoice(choice: ToolChoice, toolNames: Record<string, string>): unknown {
  switch (choice.type) {
    case 'auto':
    case 'none':
    case 'required':
      return choice.type;
    case 'tool':
      return { type: 'function', function: { name: sanitizeToolName(choice.name, toolNames) } };
  }
}

function encodeEffort(reasoning: ReasoningConfig, warnings: TranslationWarning[]): ChatReasoningEffort | undefined {
  if (reasoning.disabled === true || reasoning.effort === 'none') {
    // `none` is rejected by most models that take reasoning_effort; leaving it out is the safe request.
    warnings.push({ field: 'reasoning', message: 'reasoning cannot be switched off through reasoning_effort; left to the model default' });
    return undefined;
  }
  const effort =
    reasoning.effort ??
    (reasoning.budgetTokens !== undefined && reasoning.budgetTokens > 0 ? budgetToEffort(reasoning.budgetTokens) : undefined);
  switch (effort) {
    case 'minimal':
    case 'low':
    case 'medium':
    case 'high':
    case undefined:
      return effort;
    case 'xhigh':
    case 'max':
      // Compat vendors know low / medium / high only.
      warnings.push({ field: 'reasoning.effort', message: `effort ${effort} sent as high` });
      return 'high';
  }
}

function encodeResponseFormat(
  format: ResponseFormat,
  target: UpstreamTarget,
  warnings: TranslationWarning[],
): Record<string, unknown> | undefined {
  switch (format.type) {
    case 'text':
      return undefined;
    case 'json_object':
      return { type: 'json_object' };
    case 'json_schema': {
      if (!target.nativeJsonSchema) {
        throw new GatewayError('unsupported_feature', 'response_format json_schema is not supported by this model', {
          param: 'response_format',
        });
      }
      let schema = format.schema;
      let strict = format.strict;
      if (strict === true) {
        const prepared = prepareStrictSchema(schema);
        schema = prepared.schema;
        strict = prepared.strict;
        if (!strict)
          warnings.push({
            field: 'response_format.json_schema.strict',
            message: 'schema does not meet strict mode (every property required); sent non-strict',
          });
      }
      const spec: Record<string, unknown> = {
        // OpenAI takes `^[a-zA-Z0-9_-]{1,64}$` here too.
        name: (format.name.replace(/[^A-Za-z0-9_-]/g, '_') || 'response').slice(0, 64),
        schema,
      };
      if (format.description) spec.description = format.description;
      if (strict !== undefined) spec.strict = strict;
      return { type: 'json_schema', json_schema: spec };
    }
  }
}

function encodeTools(request: IrRequest, toolNames: Record<string, string>, warnings: TranslationWarning[]): unknown[] {
  const tools: unknown[] = request.tools.map((tool, index) => {
    if (tool.cacheHint) warnings.push({ field: `tools[${index}].cache_control`, message: 'cache hints are dropped for a Chat upstream' });
    let parameters = tool.parameters;
    let strict = tool.strict;
    if (strict === true) {
      const prepared = prepareStrictSchema(parameters);
      parameters = prepared.schema;
      strict = prepared.strict;
      if (!strict)
        warnings.push({
          field: `tools[${index}].strict`,
          message: 'parameters do not meet strict mode (every property required); sent non-strict',
        });
    }
    const fn: Record<string, unknown> = { name: sanitizeToolName(tool.name, toolNames), parameters };
    if (tool.description) fn.description = tool.description;
    if (strict !== undefined) fn.strict = strict;
    return { type: 'function', function: fn };
  });
  request.builtinTools.forEach((tool, index) => {
    if (tool.protocol === 'chat') tools.push(tool.value);
    else
      warnings.push({
        field: `builtin_tools[${index}]`,
        message: `a ${tool.protocol} built-in tool cannot be used by a Chat upstream; dropped`,
      });
  });
  return tools;
}

export function encodeChatRequest(request: IrRequest, target: UpstreamTarget, _context: CodecContext): EncodedUpstreamRequest {
  const warnings: TranslationWarning[] = [];
  const toolNames: Record<string, string> = {};
  // Tools first, so history tool calls map to the same sanitized names as the definitions.
  const tools = encodeTools(request, toolNames, warnings);
  const body: Record<string, unknown> = {
    model: target.upstreamModel,
    messages: encodeChatMessages(request, toolNames, warnings),
  };
  if (tools.length > 0) {
    body.tools = tools;
    if (request.toolChoice) body.tool_choice = encodeToolChoice(request.toolChoice, toolNames);
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  } else if (request.toolChoice && (request.toolChoice.type === 'required' || request.toolChoice.type === 'tool')) {
    // Chat rejects tool_choice without tools.
    warnings.push({ field: 'tool_choice', message: 'tool_choice without tools dropped' });
  }

  const sampling = request.sampling;
  if (sampling.maxOutputTokens !== undefined) body[chatMaxTokensField(target.upstreamModel)] = sampling.maxOutputTokens;
  if (sampling.temperature !== undefined) body.temperature = clampTemperature(sampling.temperature, 2);
  if (sampling.topP !== undefined) body.top_p = sampling.topP;
  if (sampling.topK !== undefined) warnings.push({ field: 'top_k', message: 'Chat has no top_k; dropped' });
  if (sampling.stop !== undefined && sampling.stop.length > 0) body.stop = sampling.stop;
  if (sampling.seed !== undefined) body.seed = sampling.seed;
  if (sampling.n !== undefined) {
    body.n = sampling.n;
    // The stream decoder follows choice 0 only: the others would be generated and billed, never seen.
    if (sampling.n > 1 && request.stream) warnings.push({ field: 'n', message: 'only the first choice of a streamed answer is relayed' });
  }
  if (sampling.presencePenalty !== undefined) body.presence_penalty = sampling.presencePenalty;
  if (sampling.frequencyPenalty !== undefined) body.frequency_penalty = sampling.frequencyPenalty;
  if (sampling.logprobs !== undefined) body.logprobs = sampling.logprobs;
  if (sampling.topLogprobs !== undefined) body.top_logprobs = sampling.topLogprobs;

  if (request.responseFormat) {
    const format = encodeResponseFormat(request.responseFormat, target, warnings);
    if (format) body.response_format = format;
  }
  if (request.reasoning) {
    const effort = encodeEffort(request.reasoning, warnings);
    if (effort) body.reasoning_effort = effort;
  }
  if (request.user !== undefined) body.user = request.user;
  if (request.cacheKey !== undefined) body.prompt_cache_key = request.cacheKey;
  if (request.metadata !== undefined) {
    // OpenAI takes metadata only for stored completions, compat vendors not at all.
    warnings.push({ field: 'metadata', message: 'metadata is not sent to a Chat upstream' });
  }
  if (request.previousResponseId !== undefined) {
    warnings.push({ field: 'previous_response_id', message: 'not resolved before encoding; a Chat upstream cannot use it' });
  }
  if (request.stream) {
    body.stream = true;
    // Always: usage arrives after the finish chunk only when asked, and billing needs it.
    body.stream_options = { include_usage: true };
  }
  if (request.extensions) {
    const { protocol, fields } = request.extensions;
    for (const [key, value] of Object.entries(fields)) {
      if (protocol !== 'chat') warnings.push({ field: key, message: `a ${protocol} field has no Chat equivalent; dropped` });
      else if (!(key in body)) body[key] = value;
    }
  }
  return { path: CHAT_COMPLETIONS_PATH, body, headers: {}, toolNames, warnings };
}
