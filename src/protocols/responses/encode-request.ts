/**
 * The IR request → a native Responses request for a provider of this protocol (PROTOCOLS 2 rules
 * with Responses as the target). Whatever cannot cross is reported in `warnings`.
 */
import { GatewayError } from '../../errors/gateway-error';
import { assertNever } from '../../ir/assert-never';
import type { ContentPart, ImagePart, ReasoningPart, TextPart, Turn } from '../../ir/parts';
import type { IrRequest, ReasoningEffort, ResponseFormat, ToolChoice } from '../../ir/request';
import type { TranslationWarning } from '../../ir/warning';
import type { CodecContext, EncodedUpstreamRequest, UpstreamTarget } from '../codec';
import { budgetToEffort } from '../shared/reasoning-budget';
import { clampTemperature } from '../shared/temperature';
import { isSafeToolName, sanitizeToolName } from '../shared/tool-names';
import { sourceToFileFields, sourceToImageFields } from './media-source';

export const RESPONSES_PATH = '/v1/responses';
const ENCRYPTED_REASONING = 'reasoning.encrypted_content';
const MAX_TEMPERATURE = 2;

type Item = Record<string, unknown>;

interface EncodeState {
  warnings: TranslationWarning[];
  toolNames: Record<string, string>;
  /** Cache hints are reported once per request, not per block. */
  cacheHintReported: boolean;
}

function reportCacheHint(state: EncodeState, field: string): void {
  if (state.cacheHintReported) return;
  state.cacheHintReported = true;
  state.warnings.push({ field, message: 'cache_control hints are not supported by Responses upstreams; dropped' });
}

function imageContent(part: ImagePart, field: string, state: EncodeState): Item | undefined {
  const fields = sourceToImageFields(part.source);
  if (fields === undefined) {
    state.warnings.push({ field, message: 'image without a URL, data or file id dropped' });
    return undefined;
  }
  if (part.cacheHint) reportCacheHint(state, field);
  return { type: 'input_image', ...fields, detail: part.detail ?? 'auto' };
}

/** Text and images of a tool result: a plain string when it is text only. */
function toolOutput(content: Array<TextPart | ImagePart>, field: string, state: EncodeState): string | Item[] {
  if (content.every((part) => part.type === 'text')) return content.map((part) => (part as TextPart).text).join('');
  const blocks: Item[] = [];
  content.forEach((part, index) => {
    if (part.type === 'text') blocks.push({ type: 'input_text', text: part.text });
    else {
      const image = imageContent(part, `${field}.content[${index}]`, state);
      if (image !== undefined) blocks.push(image);
    }
  });
  return blocks;
}

/**
 * A reasoning part crosses only with Responses' own encrypted content, replayed without its item
 * id so it works with `store: false` (PROTOCOLS pitfall 14). Anything else cannot be replayed.
 */
function reasoningItem(part: ReasoningPart, field: string, state: EncodeState): Item | undefined {
  if (part.encrypted?.origin === 'responses') {
    return {
      type: 'reasoning',
      summary: part.text === '' ? [] : [{ type: 'summary_text', text: part.text }],
      encrypted_content: part.encrypted.value,
    };
  }
  state.warnings.push({ field, message: 'reasoning without Responses encrypted content cannot be replayed; dropped' });
  return undefined;
}

function userItems(turn: Turn, turnIndex: number, state: EncodeState): Item[] {
  const items: Item[] = [];
  const content: Item[] = [];
  turn.parts.forEach((part, partIndex) => {
    const field = `turns[${turnIndex}].parts[${partIndex}]`;
    switch (part.type) {
      case 'text':
        if (part.cacheHint) reportCacheHint(state, field);
        content.push({ type: 'input_text', text: part.text });
        break;
      case 'image': {
        const image = imageContent(part, field, state);
        if (image !== undefined) content.push(image);
        break;
      }
      case 'document': {
        const fields = sourceToFileFields(part.source, part.title);
        if (fields === undefined) state.warnings.push({ field, message: 'document without data, URL or file id dropped' });
        else content.push({ type: 'input_file', ...fields });
        if (part.cacheHint) reportCacheHint(state, field);
        break;
      }
      case 'tool_result':
        // Tool outputs are items of their own, placed before the turn's other content.
        if (part.isError)
          state.warnings.push({
            field: `${field}.isError`,
            message: 'Responses has no error flag on tool output; sent as a normal output',
          });
        items.push({ type: 'function_call_output', call_id: part.callId, output: toolOutput(part.content, field, state) });
        break;
      case 'refusal':
        content.push({ type: 'input_text', text: part.text });
        break;
      case 'tool_call':
      case 'reasoning':
        state.warnings.push({ field, message: `${part.type} in a user turn dropped` });
        break;
      case 'native':
        if (part.protocol === 'responses') items.push(part.value);
        else state.warnings.push({ field, message: `native ${part.protocol} block cannot be sent to Responses; dropped` });
        break;
      default:
        assertNever(part, 'content part');
    }
  });
  if (content.length > 0) items.push({ type: 'message', role: 'user', content });
  return items;
}

function assistantItems(turn: Turn, turnIndex: number, state: EncodeState): Item[] {
  const items: Item[] = [];
  let content: Item[] = [];
  const flush = (): void => {
    if (content.length > 0) items.push({ type: 'message', role: 'assistant', content });
    content = [];
  };
  turn.parts.forEach((part: ContentPart, partIndex) => {
    const field = `turns[${turnIndex}].parts[${partIndex}]`;
    switch (part.type) {
      case 'text':
        if (part.cacheHint) reportCacheHint(state, field);
        if (part.text !== '') content.push({ type: 'output_text', text: part.text, annotations: [] });
        break;
      case 'refusal':
        content.push({ type: 'refusal', refusal: part.text });
        break;
      case 'tool_call':
        flush();
        if (part.signature !== undefined && part.signature.origin !== 'responses') {
          state.warnings.push({ field: `${field}.signature`, message: `${part.signature.origin} signature dropped for Responses` });
        }
        items.push({
          type: 'function_call',
          call_id: part.id,
          name: sanitizeToolName(part.name, state.toolNames),
          arguments: part.argumentsJson,
        });
        break;
      case 'reasoning': {
        flush();
        const item = reasoningItem(part, field, state);
        if (item !== undefined) items.push(item);
        break;
      }
      case 'native':
        flush();
        if (part.protocol === 'responses') items.push(part.value);
        else state.warnings.push({ field, message: `native ${part.protocol} block cannot be sent to Responses; dropped` });
        break;
      case 'image':
      case 'document':
      case 'tool_result':
        state.warnings.push({ field, message: `${part.type} in an assistant turn cannot be sent to Responses; dropped` });
        break;
      default:
        assertNever(part, 'content part');
    }
  });
  flush();
  return items;
}

function toolChoiceValue(choice: ToolChoice, state: EncodeState): unknown {
  switch (choice.type) {
    case 'auto':
    case 'none':
    case 'required':
      return choice.type;
    case 'tool':
      return { type: 'function', name: sanitizeToolName(choice.name, state.toolNames) };
    default:
      return assertNever(choice, 'tool choice');
  }
}

function textFormat(format: ResponseFormat): Item {
  switch (format.type) {
    case 'text':
    case 'json_object':
      return { type: format.type };
    case 'json_schema':
      return {
        type: 'json_schema',
        name: format.name,
        schema: format.schema,
        ...(format.strict !== undefined ? { strict: format.strict } : {}),
        ...(format.description !== undefined ? { description: format.description } : {}),
      };
    default:
      return assertNever(format, 'response format');
  }
}

/** The Responses `reasoning.effort` for the IR config; `max` has no Responses level above `xhigh`. */
function reasoningEffort(request: IrRequest, state: EncodeState): Exclude<ReasoningEffort, 'max'> | undefined {
  const reasoning = request.reasoning;
  if (reasoning === undefined) return undefined;
  const effort =
    reasoning.effort ??
    (reasoning.budgetTokens !== undefined && reasoning.budgetTokens > 0 ? budgetToEffort(reasoning.budgetTokens) : undefined);
  if (effort === 'max') {
    state.warnings.push({ field: 'reasoning.effort', message: "effort 'max' sent as 'xhigh'" });
    return 'xhigh';
  }
  return effort;
}

function samplingFields(request: IrRequest, state: EncodeState): Item {
  const sampling = request.sampling;
  if (sampling.n !== undefined && sampling.n > 1) {
    throw new GatewayError('invalid_request', "Invalid 'n': this model cannot return more than one choice", { param: 'n' });
  }
  const body: Item = {};
  if (sampling.maxOutputTokens !== undefined) body.max_output_tokens = sampling.maxOutputTokens;
  if (sampling.temperature !== undefined) {
    const clamped = clampTemperature(sampling.temperature, MAX_TEMPERATURE);
    if (clamped !== sampling.temperature) state.warnings.push({ field: 'temperature', message: `clamped to ${clamped}` });
    body.temperature = clamped;
  }
  if (sampling.topP !== undefined) body.top_p = sampling.topP;
  if (sampling.topLogprobs !== undefined) body.top_logprobs = sampling.topLogprobs;
  const dropped: Array<[keyof typeof sampling, string]> = [
    ['topK', 'top_k'],
    ['stop', 'stop'],
    ['seed', 'seed'],
    ['presencePenalty', 'presence_penalty'],
    ['frequencyPenalty', 'frequency_penalty'],
  ];
  for (const [key, field] of dropped) {
    if (sampling[key] !== undefined) state.warnings.push({ field, message: `Responses has no ${field}; dropped` });
  }
  if (sampling.logprobs === true && sampling.topLogprobs === undefined) {
    state.warnings.push({ field: 'logprobs', message: 'logprobs without top_logprobs cannot be requested from Responses; dropped' });
  }
  return body;
}

/** Same-protocol extension fields fill what we did not set; objects merge with ours winning. */
function mergeExtensions(body: Item, request: IrRequest): void {
  if (request.extensions?.protocol !== 'responses') return;
  for (const [key, value] of Object.entries(request.extensions.fields)) {
    const ours = body[key];
    if (ours === undefined) body[key] = value;
    else if (key === 'include' && Array.isArray(ours) && Array.isArray(value)) body[key] = [...new Set([...value, ...ours])];
    else if (ours !== null && typeof ours === 'object' && !Array.isArray(ours) && value !== null && typeof value === 'object') {
      body[key] = { ...(value as Item), ...(ours as Item) };
    }
  }
}

export function encodeResponsesRequest(request: IrRequest, target: UpstreamTarget, _context: CodecContext): EncodedUpstreamRequest {
  const state: EncodeState = { warnings: [], toolNames: {}, cacheHintReported: false };
  const body: Item = { model: target.upstreamModel };

  const instructions = request.system.map((part) => part.text).join('\n\n');
  request.system.forEach((part, index) => {
    if (part.cacheHint) reportCacheHint(state, `system[${index}].cache_control`);
  });
  if (instructions !== '') body.instructions = instructions;

  // Names that are already safe claim themselves first: `sanitizeToolName` returns a safe name
  // unchecked, so an unsafe `a.b` sanitized earlier could otherwise take `a_b` from a real `a_b`.
  for (const tool of request.tools) if (isSafeToolName(tool.name)) state.toolNames[tool.name] = tool.name;
  const tools: Item[] = request.tools.map((tool, index) => {
    if (tool.cacheHint) reportCacheHint(state, `tools[${index}].cache_control`);
    const name = sanitizeToolName(tool.name, state.toolNames);
    // Every declared tool is listed (identity when unchanged): the decoder needs the declared set
    // to recognise the model's undeclared `parallel` wrapper.
    state.toolNames[name] = tool.name;
    return {
      type: 'function',
      name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      parameters: tool.parameters,
      // Required by OpenAI's schema, and its default is `true` there: a tool from a caller that
      // never asked for strict schemas (Messages, Chat, Generate-Content) is sent as not strict.
      strict: tool.strict ?? false,
    };
  });
  request.builtinTools.forEach((tool, index) => {
    if (tool.protocol === 'responses') tools.push(tool.value);
    else
      state.warnings.push({
        field: `builtinTools[${index}]`,
        message: `${tool.protocol} built-in tool cannot be used with Responses; dropped`,
      });
  });
  // Turns after tools: declared names claim their sanitized form first.
  const input: Item[] = [];
  request.turns.forEach((turn, index) => {
    input.push(...(turn.role === 'user' ? userItems(turn, index, state) : assistantItems(turn, index, state)));
  });
  body.input = input;
  if (tools.length > 0) body.tools = tools;
  if (request.toolChoice !== undefined) body.tool_choice = toolChoiceValue(request.toolChoice, state);
  if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;

  Object.assign(body, samplingFields(request, state));
  if (request.responseFormat !== undefined) body.text = { format: textFormat(request.responseFormat) };

  const effort = reasoningEffort(request, state);
  if (request.reasoning?.disabled && effort === undefined) {
    state.warnings.push({ field: 'reasoning', message: 'reasoning cannot be switched off explicitly; the model default applies' });
  }
  if (effort !== undefined || request.reasoning?.summary !== undefined || request.reasoning?.includeThoughts) {
    const summary = request.reasoning?.summary ?? (request.reasoning?.includeThoughts ? 'auto' : undefined);
    body.reasoning = { ...(effort !== undefined ? { effort } : {}), ...(summary !== undefined ? { summary } : {}) };
    // Reasoning state must come back to be replayed without server-side storage.
    if (effort !== 'none') body.include = [ENCRYPTED_REASONING];
  }

  if (request.metadata !== undefined) body.metadata = request.metadata;
  if (request.user !== undefined) body.user = request.user;
  if (request.cacheKey !== undefined) body.prompt_cache_key = request.cacheKey;
  if (request.store !== undefined) body.store = request.store;
  // `previous_response_id` is ours, not the provider's: the relay has resolved it into `turns`.
  body.stream = request.stream;
  mergeExtensions(body, request);

  return { path: RESPONSES_PATH, body, headers: {}, toolNames: state.toolNames, warnings: state.warnings };
}
