/**
 * IR → a Generate-Content provider request (`/v1beta/models/{model}:generateContent` or
 * `:streamGenerateContent?alt=sse`). Applies every PROTOCOLS.md §2 rule for this protocol as a
 * target; what cannot cross is reported in `warnings`, never dropped silently.
 */
import { GatewayError } from '../../errors/gateway-error';
import { assertNever } from '../../ir/assert-never';
import type { ContentPart, MediaSource, TextPart, ToolResultPart, Turn } from '../../ir/parts';
import type { IrRequest } from '../../ir/request';
import type { TranslationWarning } from '../../ir/warning';
import type { CodecContext, EncodedUpstreamRequest, UpstreamTarget } from '../codec';
import { parseDataUrl } from '../shared/data-url';
import { effortToBudget } from '../shared/reasoning-budget';
import { clampTemperature } from '../shared/temperature';
import { argumentsToObject } from '../shared/tool-arguments';
import { sanitizeToolName } from '../shared/tool-names';
import { appendGenerateContentPart } from './append-generate-content-part';
import { GENERATE_CONTENT } from './generate-content-thought-signature';
import { isEmptyObjectSchema, sanitizeGenerateContentSchema } from './sanitize-generate-content-schema';

type Part = Record<string, unknown>;
interface Content {
  role: 'user' | 'model';
  parts: Part[];
}
/** A content being built, with the ids needed to order function responses like their calls. */
interface DraftContent extends Content {
  /** Function calls of a model content, in order. */
  callIds: string[];
  /** Call ids answered by the function responses at the front of a user content, in order. */
  responseIds: string[];
}

/** Generate-Content names: a letter or `_` first, then `[A-Za-z0-9_.:-]`, at most 64. */
const GENERATE_CONTENT_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;
const MAX_STOP_SEQUENCES = 5;
/**
 * Google's documented placeholder for a function call whose signature was not produced by this
 * provider (history from another model): without one, Gemini 3 rejects the request with
 * "Function call is missing a thought_signature" (pitfall 1).
 */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

export function encodeGenerateContentRequest(request: IrRequest, target: UpstreamTarget, _context: CodecContext): EncodedUpstreamRequest {
  const warnings: TranslationWarning[] = [];
  const toolNames: Record<string, string> = {};
  const nameFor = (name: string): string => (GENERATE_CONTENT_NAME.test(name) ? name : sanitizeToolName(name, toolNames));

  if (request.sampling.n !== undefined && request.sampling.n > 1) {
    // candidateCount exists upstream, but one IR answer holds one candidate: the rest would be lost.
    throw new GatewayError('invalid_request', 'n: only one candidate per request is supported for this model', { param: 'n' });
  }

  const body: Record<string, unknown> = {};
  const extensions = request.extensions?.protocol === GENERATE_CONTENT ? request.extensions.fields : undefined;
  if (request.extensions && !extensions) {
    for (const field of Object.keys(request.extensions.fields)) {
      warnings.push({ field, message: `a ${request.extensions.protocol} field has no equivalent in Generate-Content` });
    }
  }

  // Tools first: their sanitized names must be registered before the history uses them.
  const functionDeclarations = request.tools.map((tool, index) => {
    if (tool.cacheHint) warnings.push({ field: `tools[${index}].cache_control`, message: 'cache hints are dropped for Generate-Content' });
    if (tool.strict)
      warnings.push({ field: `tools[${index}].strict`, message: 'strict tool schemas are not enforced by Generate-Content' });
    const declaration: Record<string, unknown> = { name: nameFor(tool.name) };
    if (tool.description !== undefined) declaration.description = tool.description;
    const parameters = sanitizeGenerateContentSchema(tool.parameters);
    if (!isEmptyObjectSchema(parameters)) declaration.parameters = parameters;
    return declaration;
  });
  const tools: Record<string, unknown>[] = [];
  if (functionDeclarations.length > 0) tools.push({ functionDeclarations });
  request.builtinTools.forEach((tool, index) => {
    if (tool.protocol === GENERATE_CONTENT) tools.push(tool.value);
    else warnings.push({ field: `builtinTools[${index}]`, message: `a ${tool.protocol} built-in tool cannot be sent to Generate-Content` });
  });

  body.contents = encodeContents(request.turns, nameFor, warnings);

  const system = request.system.filter((part) => part.text !== '');
  if (system.some((part) => part.cacheHint))
    warnings.push({ field: 'system.cache_control', message: 'cache hints are dropped for Generate-Content' });
  if (system.length > 0) body.systemInstruction = { parts: system.map((part) => ({ text: part.text })) };

  if (tools.length > 0) body.tools = tools;
  const toolConfig = encodeToolConfig(request, nameFor, warnings);
  const extensionToolConfig = asRecord(extensions?.toolConfig);
  if (toolConfig || extensionToolConfig) body.toolConfig = { ...extensionToolConfig, ...toolConfig };

  const generationConfig = { ...asRecord(extensions?.generationConfig), ...encodeGenerationConfig(request, target, warnings) };
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;

  if (extensions) {
    for (const [key, value] of Object.entries(extensions)) {
      if (key !== 'generationConfig' && key !== 'toolConfig' && body[key] === undefined) body[key] = value;
    }
  }
  if (request.user !== undefined) warnings.push({ field: 'user', message: 'Generate-Content has no end-user field' });
  if (request.metadata !== undefined) warnings.push({ field: 'metadata', message: 'Generate-Content has no metadata field' });

  const method = request.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return { path: `/v1beta/models/${target.upstreamModel}:${method}`, body, headers: {}, toolNames, warnings };
}

function encodeContents(turns: Turn[], nameFor: (name: string) => string, warnings: TranslationWarning[]): Content[] {
  const contents: DraftContent[] = [];
  // Function responses need the name of their call: Chat and Responses results carry only the id.
  const callNames = new Map<string, string>();
  for (const turn of turns) for (const part of turn.parts) if (part.type === 'tool_call') callNames.set(part.id, part.name);

  turns.forEach((turn, turnIndex) => {
    const role = turn.role === 'assistant' ? 'model' : 'user';
    const content: DraftContent = { role, parts: [], callIds: [], responseIds: [] };
    const responses: Array<{ part: Part; callId: string }> = [];
    const trailing: Part[] = [];
    turn.parts.forEach((part, partIndex) => {
      const field = `turns[${turnIndex}].parts[${partIndex}]`;
      if (part.type === 'tool_result') {
        if (role === 'model') {
          warnings.push({ field, message: 'a tool result in an assistant turn is dropped' });
          return;
        }
        const name = part.name ?? callNames.get(part.callId);
        if (name === undefined) warnings.push({ field, message: 'no tool call matches this result; its name is unknown' });
        responses.push({ part: encodeFunctionResponse(part, nameFor(name ?? 'unknown_function')), callId: part.callId });
        for (const extra of part.content) {
          if (extra.type === 'image') {
            const media = encodeMedia(extra.source, `${field}.content`, warnings);
            if (media) trailing.push(media);
          }
        }
        return;
      }
      const encoded = encodePart(part, role, field, nameFor, warnings);
      if (encoded === undefined) return;
      if (part.type === 'tool_call') content.callIds.push(part.id);
      appendGenerateContentPart(content.parts, encoded);
    });
    // All function responses of a model turn go first in one user content (pitfall 5).
    content.parts = [...responses.map((r) => r.part), ...trailing, ...content.parts];
    content.responseIds = responses.map((r) => r.callId);
    if (content.parts.length === 0) {
      warnings.push({ field: `turns[${turnIndex}]`, message: 'a turn with nothing Generate-Content can take is dropped' });
      return;
    }
    const previous = contents[contents.length - 1];
    if (previous && previous.role === content.role) mergeInto(previous, content);
    else contents.push(content);
  });

  ensureCallSignatures(contents);
  orderFunctionResponses(contents);
  return contents.map(({ role, parts }) => ({ role, parts }));
}

function mergeInto(previous: DraftContent, next: DraftContent): void {
  const isResponse = (part: Part): boolean => part.functionResponse !== undefined;
  // Keep function responses together at the front of the merged user content.
  const parts = [
    ...previous.parts.filter(isResponse),
    ...next.parts.filter(isResponse),
    ...previous.parts.filter((p) => !isResponse(p)),
    ...next.parts.filter((p) => !isResponse(p)),
  ];
  previous.parts = parts;
  previous.callIds.push(...next.callIds);
  previous.responseIds.push(...next.responseIds);
}

/** Function responses in the order of the calls they answer, matched by id (pitfall 6). */
function orderFunctionResponses(contents: DraftContent[]): void {
  for (let i = 1; i < contents.length; i++) {
    const content = contents[i];
    const previous = contents[i - 1];
    const ids = content.responseIds;
    if (content.role !== 'user' || previous.role !== 'model' || ids.length < 2) continue;
    const responses = content.parts.slice(0, ids.length).map((part, k) => ({ part, id: ids[k] }));
    const rank = (id: string): number => {
      const position = previous.callIds.indexOf(id);
      return position < 0 ? Number.MAX_SAFE_INTEGER : position;
    };
    responses.sort((a, b) => rank(a.id) - rank(b.id));
    content.parts.splice(0, ids.length, ...responses.map((r) => r.part));
  }
}

/** The first function call of each model content must carry a signature for Gemini 3 (pitfall 1). */
function ensureCallSignatures(contents: Content[]): void {
  for (const content of contents) {
    if (content.role !== 'model') continue;
    const firstCall = content.parts.find((part) => part.functionCall !== undefined);
    if (firstCall === undefined) continue;
    const anySigned = content.parts.some((part) => part.functionCall !== undefined && part.thoughtSignature !== undefined);
    if (!anySigned) firstCall.thoughtSignature = SKIP_THOUGHT_SIGNATURE;
  }
}

function encodePart(
  part: Exclude<ContentPart, ToolResultPart>,
  role: 'user' | 'model',
  field: string,
  nameFor: (name: string) => string,
  warnings: TranslationWarning[],
): Part | undefined {
  switch (part.type) {
    case 'text':
      if (part.cacheHint) warnings.push({ field: `${field}.cache_control`, message: 'cache hints are dropped for Generate-Content' });
      return part.text === '' ? undefined : { text: part.text };
    case 'refusal':
      return part.text === '' ? undefined : { text: part.text };
    case 'image':
    case 'document':
      return encodeMedia(part.source, field, warnings);
    case 'tool_call': {
      if (role === 'user') {
        warnings.push({ field, message: 'a tool call in a user turn is dropped' });
        return undefined;
      }
      const encoded: Part = { functionCall: { id: part.id, name: nameFor(part.name), args: argumentsToObject(part.argumentsJson) } };
      if (part.signature?.origin === GENERATE_CONTENT) encoded.thoughtSignature = part.signature.value;
      else if (part.signature)
        warnings.push({ field: `${field}.signature`, message: `a ${part.signature.origin} signature is not sent to Generate-Content` });
      return encoded;
    }
    case 'reasoning': {
      // Only this provider's own thoughts travel back, by their signature; other families'
      // reasoning (and its opaque values) cannot be replayed here.
      const signature = part.signature?.origin === GENERATE_CONTENT ? part.signature.value : undefined;
      if (signature === undefined) {
        if (part.text !== '' || part.signature || part.redacted || part.encrypted) {
          warnings.push({ field, message: 'reasoning without a Generate-Content signature is not replayed' });
        }
        return undefined;
      }
      return part.text === '' ? { text: '', thoughtSignature: signature } : { text: part.text, thought: true, thoughtSignature: signature };
    }
    case 'native':
      if (part.protocol === GENERATE_CONTENT) return part.value;
      warnings.push({ field, message: `a ${part.protocol} block cannot be sent to Generate-Content` });
      return undefined;
    default:
      return assertNever(part, 'content part');
  }
}

function encodeFunctionResponse(part: ToolResultPart, name: string): Part {
  const text = part.content
    .filter((c): c is TextPart => c.type === 'text')
    .map((c) => c.text)
    .join('');
  // `response` must be an object: JSON objects go as they are, anything else is wrapped.
  let value: unknown = text;
  try {
    value = text.trim() === '' ? text : JSON.parse(text);
  } catch {
    value = text;
  }
  let response: Record<string, unknown>;
  if (part.isError) response = { error: value };
  else if (value !== null && typeof value === 'object' && !Array.isArray(value)) response = value as Record<string, unknown>;
  else if (typeof value === 'string') response = { content: value };
  else response = { result: value };
  return { functionResponse: { id: part.callId, name, response } };
}

function encodeMedia(source: MediaSource, field: string, warnings: TranslationWarning[]): Part | undefined {
  switch (source.kind) {
    case 'base64':
      return { inlineData: { mimeType: source.mediaType, data: source.data } };
    case 'url': {
      const dataUrl = parseDataUrl(source.url);
      if (dataUrl) return { inlineData: { mimeType: dataUrl.mediaType, data: dataUrl.data } };
      if (/^https?:/i.test(source.url)) {
        // The relay downloads http(s) URLs and inlines them before encoding; one still here could not be fetched.
        warnings.push({ field, message: 'an http(s) image URL cannot be sent to Generate-Content and is dropped' });
        return undefined;
      }
      return { fileData: { fileUri: source.url, ...mimeFor(source.url) } };
    }
    case 'file':
      if (source.uri !== undefined)
        return { fileData: { fileUri: source.uri, ...(source.mediaType ? { mimeType: source.mediaType } : mimeFor(source.uri)) } };
      warnings.push({ field, message: 'a file id of another provider cannot be sent to Generate-Content' });
      return undefined;
    default:
      return assertNever(source, 'media source');
  }
}

const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  mp3: 'audio/mp3',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  txt: 'text/plain',
};

function mimeFor(uri: string): { mimeType?: string } {
  const extension = /\.([A-Za-z0-9]+)(?:[?#].*)?$/.exec(uri)?.[1]?.toLowerCase();
  const mimeType = extension !== undefined ? MIME_BY_EXTENSION[extension] : undefined;
  return mimeType ? { mimeType } : {};
}

function encodeToolConfig(
  request: IrRequest,
  nameFor: (name: string) => string,
  warnings: TranslationWarning[],
): Record<string, unknown> | undefined {
  if (request.parallelToolCalls === false)
    warnings.push({ field: 'parallel_tool_calls', message: 'Generate-Content cannot forbid parallel tool calls' });
  const choice = request.toolChoice;
  if (!choice) return undefined;
  switch (choice.type) {
    case 'auto':
      return { functionCallingConfig: { mode: 'AUTO' } };
    case 'none':
      return { functionCallingConfig: { mode: 'NONE' } };
    case 'required':
      return { functionCallingConfig: { mode: 'ANY' } };
    case 'tool':
      return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [nameFor(choice.name)] } };
    default:
      return assertNever(choice, 'tool choice');
  }
}

function encodeGenerationConfig(request: IrRequest, target: UpstreamTarget, warnings: TranslationWarning[]): Record<string, unknown> {
  const sampling = request.sampling;
  const config: Record<string, unknown> = {};
  if (sampling.maxOutputTokens !== undefined) config.maxOutputTokens = sampling.maxOutputTokens;
  if (sampling.temperature !== undefined) {
    const clamped = clampTemperature(sampling.temperature, 2);
    if (clamped !== sampling.temperature) warnings.push({ field: 'temperature', message: `clamped to ${clamped}` });
    config.temperature = clamped;
  }
  if (sampling.topP !== undefined) config.topP = sampling.topP;
  if (sampling.topK !== undefined) config.topK = sampling.topK;
  if (sampling.stop !== undefined && sampling.stop.length > 0) {
    if (sampling.stop.length > MAX_STOP_SEQUENCES)
      warnings.push({ field: 'stop', message: `only the first ${MAX_STOP_SEQUENCES} stop sequences are sent` });
    config.stopSequences = sampling.stop.slice(0, MAX_STOP_SEQUENCES);
  }
  if (sampling.seed !== undefined) config.seed = sampling.seed;
  if (sampling.presencePenalty !== undefined) config.presencePenalty = sampling.presencePenalty;
  if (sampling.frequencyPenalty !== undefined) config.frequencyPenalty = sampling.frequencyPenalty;
  if (sampling.n !== undefined) config.candidateCount = sampling.n;
  if (sampling.logprobs !== undefined) config.responseLogprobs = sampling.logprobs;
  if (sampling.topLogprobs !== undefined) config.logprobs = sampling.topLogprobs;

  const format = request.responseFormat;
  if (format) {
    switch (format.type) {
      case 'text':
        break;
      case 'json_object':
        config.responseMimeType = 'application/json';
        break;
      case 'json_schema':
        config.responseMimeType = 'application/json';
        config.responseSchema = sanitizeGenerateContentSchema(format.schema);
        break;
      default:
        assertNever(format, 'response format');
    }
  }

  const thinking = encodeThinkingConfig(request, target, warnings);
  if (thinking) config.thinkingConfig = thinking;
  return config;
}

function encodeThinkingConfig(
  request: IrRequest,
  target: UpstreamTarget,
  warnings: TranslationWarning[],
): Record<string, unknown> | undefined {
  const reasoning = request.reasoning;
  if (!reasoning) return undefined;
  if (reasoning.disabled || reasoning.effort === 'none') return { thinkingBudget: 0 };
  const config: Record<string, unknown> = {};
  // A budget works on every generation (Gemini 3 still accepts thinkingBudget), so efforts are
  // sent as a share of the model's output cap rather than as model-specific thinking levels.
  if (reasoning.budgetTokens !== undefined) config.thinkingBudget = reasoning.budgetTokens;
  else if (reasoning.effort !== undefined) config.thinkingBudget = effortToBudget(reasoning.effort, target.maxOutputTokens);
  if (reasoning.includeThoughts !== undefined) config.includeThoughts = reasoning.includeThoughts;
  if (reasoning.summary !== undefined && reasoning.includeThoughts === undefined) {
    config.includeThoughts = true;
    warnings.push({
      field: 'reasoning.summary',
      message: 'thought summaries are requested with includeThoughts; their detail cannot be chosen',
    });
  }
  return Object.keys(config).length > 0 ? config : undefined;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
