/** The IR → a Messages provider request (path, body, headers), reporting whatever cannot cross. */
import { GatewayError } from '../../errors/gateway-error';
import type { IrRequest, SystemPart } from '../../ir/request';
import type { TranslationWarning } from '../../ir/warning';
import type { CodecContext, EncodedUpstreamRequest, UpstreamTarget } from '../codec';
import { clampTemperature } from '../shared/temperature';
import { encodeMessagesToolChoice, encodeMessagesTools, objectInputSchema, uniqueToolName } from './encode-tools';
import { encodeMessagesTurns } from './encode-turns';
import { planMessagesThinking } from './plan-thinking';
import type { JsonRecord } from '../shared/read-json';
import { isRecord } from '../shared/read-json';
import { MESSAGES_API_VERSION, MESSAGES_PATH, type MessagesBlock, type MessagesMessageParam } from './wire-types';

const JSON_TOOL_DESCRIPTION = 'Respond with your final answer by calling this tool; its input is the answer, as JSON matching the schema.';

function encodeSystem(system: readonly SystemPart[]): string | MessagesBlock[] | undefined {
  const parts = system.filter((part) => part.text.trim() !== '');
  if (parts.length === 0) return undefined;
  // The array form is only needed to carry cache hints; a plain string is what most clients send.
  if (parts.every((part) => part.cacheHint === undefined)) return parts.map((part) => part.text).join('\n');
  return parts.map((part) => ({ type: 'text', text: part.text, ...(part.cacheHint ? { cache_control: { ...part.cacheHint } } : {}) }));
}

/** Tool names used in the history; the API wants every one of them defined. */
function historyToolNames(messages: readonly MessagesMessageParam[]): string[] {
  const names = new Set<string>();
  for (const message of messages) {
    for (const block of message.content) if (block.type === 'tool_use') names.add(String(block.name));
  }
  return [...names];
}

function warnUnsupportedSampling(request: IrRequest, warnings: TranslationWarning[]): void {
  const sampling = request.sampling;
  const dropped: Array<[string, unknown]> = [
    ['seed', sampling.seed],
    ['presencePenalty', sampling.presencePenalty],
    ['frequencyPenalty', sampling.frequencyPenalty],
    ['logprobs', sampling.logprobs],
    ['topLogprobs', sampling.topLogprobs],
  ];
  for (const [field, value] of dropped) {
    if (value !== undefined && value !== false)
      warnings.push({ field: `sampling.${field}`, message: 'not supported by this provider; ignored' });
  }
}

export function encodeMessagesRequest(request: IrRequest, target: UpstreamTarget, _context: CodecContext): EncodedUpstreamRequest {
  if (request.sampling.n !== undefined && request.sampling.n > 1) {
    throw new GatewayError('invalid_request', 'n: this model returns a single choice; n greater than 1 is not supported', { param: 'n' });
  }
  const warnings: TranslationWarning[] = [];
  const toolNames: Record<string, string> = {};

  const tools = encodeMessagesTools(request, target, toolNames, warnings);
  const messages = encodeMessagesTurns(request.turns, toolNames, warnings);
  if (messages.length === 0) {
    throw new GatewayError('invalid_request', 'messages: at least one message with content is required', { param: 'messages' });
  }
  let toolChoice = encodeMessagesToolChoice(request.toolChoice, request.parallelToolCalls, toolNames);

  // History with tool calls needs the tools defined: keep stubs and forbid new calls rather than drop them.
  const defined = new Set(tools.map((tool) => String(tool.name)));
  const undefinedNames = historyToolNames(messages).filter((name) => !defined.has(name));
  if (undefinedNames.length > 0 && request.tools.length === 0) {
    for (const name of undefinedNames) tools.push({ name, input_schema: { type: 'object' } });
    toolChoice ??= { type: 'none' };
    warnings.push({
      field: 'tools',
      message: `tools used earlier in the conversation were declared as stubs: ${undefinedNames.join(', ')}`,
    });
  }

  const body: JsonRecord = {};
  const extensions = request.extensions;
  if (extensions && extensions.protocol === 'messages') Object.assign(body, extensions.fields);
  else if (extensions) {
    warnings.push({
      field: 'extensions',
      message: `${extensions.protocol} fields not understood here were dropped: ${Object.keys(extensions.fields).join(', ')}`,
    });
  }

  // Structured output: native on models that have it, else a forced tool whose input is the answer.
  let jsonToolName: string | undefined;
  const format = request.responseFormat;
  if (format?.type === 'json_schema' && target.nativeJsonSchema) {
    const extra = isRecord(body.output_config) ? body.output_config : {};
    body.output_config = { ...extra, format: { type: 'json_schema', schema: format.schema } };
  } else if (format?.type === 'json_schema' || format?.type === 'json_object') {
    jsonToolName = uniqueToolName('json', new Set(tools.map((tool) => String(tool.name))));
    const schema = format.type === 'json_schema' ? format.schema : { type: 'object' };
    tools.push({
      name: jsonToolName,
      description: (format.type === 'json_schema' ? format.description : undefined) ?? JSON_TOOL_DESCRIPTION,
      input_schema: objectInputSchema(schema, 'responseFormat.schema', warnings),
    });
    if (request.toolChoice !== undefined && request.toolChoice.type !== 'auto') {
      warnings.push({ field: 'toolChoice', message: 'replaced by the forced structured-output tool' });
    }
    if (request.tools.length > 0) {
      warnings.push({ field: 'tools', message: 'the other tools cannot be called while structured output is forced through a tool' });
    }
    toolChoice = { type: 'tool', name: jsonToolName };
  }

  const plan = planMessagesThinking(request, target, messages, jsonToolName !== undefined, warnings);
  const sampling = request.sampling;
  if (plan.thinking) {
    for (const [field, value] of [
      ['temperature', sampling.temperature],
      ['topP', sampling.topP],
      ['topK', sampling.topK],
    ] as const) {
      if (value !== undefined) warnings.push({ field: `sampling.${field}`, message: 'not allowed together with thinking; ignored' });
    }
    if (toolChoice?.type === 'any' || toolChoice?.type === 'tool') {
      warnings.push({ field: 'toolChoice', message: 'a forced tool cannot be combined with thinking; tool choice set to auto' });
      toolChoice = { ...toolChoice, type: 'auto' };
      delete toolChoice.name;
    }
  }

  body.model = target.upstreamModel;
  body.max_tokens = plan.maxTokens;
  const system = encodeSystem(request.system);
  if (system !== undefined) body.system = system;
  body.messages = messages;
  if (tools.length > 0) body.tools = tools;
  if (toolChoice !== undefined) {
    if (tools.length > 0) body.tool_choice = toolChoice;
    else if (toolChoice.type !== 'auto' && toolChoice.type !== 'none') {
      warnings.push({ field: 'toolChoice', message: 'no tools are defined; tool choice ignored' });
    }
  }
  if (plan.thinking) body.thinking = plan.thinking;
  else {
    if (sampling.temperature !== undefined) {
      const temperature = clampTemperature(sampling.temperature, 1);
      if (temperature !== sampling.temperature)
        warnings.push({ field: 'sampling.temperature', message: `clamped to ${temperature} (this provider accepts 0 to 1)` });
      body.temperature = temperature;
    }
    if (sampling.topP !== undefined) body.top_p = sampling.topP;
    if (sampling.topK !== undefined) body.top_k = sampling.topK;
  }
  if (sampling.stop !== undefined) {
    const stops = sampling.stop.filter((stop) => stop.trim() !== '');
    if (stops.length !== sampling.stop.length)
      warnings.push({ field: 'sampling.stop', message: 'empty or whitespace-only stop sequences are not accepted and were dropped' });
    if (stops.length > 0) body.stop_sequences = stops;
  }
  warnUnsupportedSampling(request, warnings);
  if (request.user !== undefined) body.metadata = { ...(isRecord(body.metadata) ? body.metadata : {}), user_id: request.user };
  if (request.metadata !== undefined && Object.keys(request.metadata).length > 0) {
    warnings.push({ field: 'metadata', message: 'only the user id is forwarded to this provider' });
  }
  if (request.previousResponseId !== undefined) {
    warnings.push({ field: 'previousResponseId', message: 'not understood by this provider; the conversation must be resolved first' });
  }
  body.stream = request.stream;

  return {
    path: MESSAGES_PATH,
    body,
    headers: { 'anthropic-version': MESSAGES_API_VERSION },
    toolNames,
    warnings,
    ...(jsonToolName !== undefined ? { jsonToolName } : {}),
  };
}
