/** A Chat Completions client body → IR request (zod-validated; errors name the field). */
import { GatewayError } from '../../errors/gateway-error';
import type { CacheHint, ContentPart, DocumentPart, ImagePart, ReasoningPart, TextPart, ToolCallPart, Turn } from '../../ir/parts';
import type { BuiltinTool, IrRequest, ResponseFormat, Sampling, SystemPart, ToolChoice, ToolDefinition } from '../../ir/request';
import type { TranslationWarning } from '../../ir/warning';
import type { CodecContext, DecodedRequest } from '../codec';
import { parseDataUrl } from '../shared/data-url';
import { recoverToolCallId } from './chat-tool-call-id';
import { unwrapReasoningEnvelope } from './chat-reasoning-envelope';
import {
  chatRequestSchema,
  isFunctionTool,
  KNOWN_REQUEST_FIELDS,
  type ChatMessage,
  type ChatRequest,
  type ChatTextPart,
  type ChatUserPart,
} from './chat-request-schema';
import { invalidRequestFromZod } from './invalid-request-from-zod';

type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;

function cacheHint(control: { type: 'ephemeral'; ttl?: string } | null | undefined): CacheHint | undefined {
  if (!control) return undefined;
  return control.ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: control.ttl };
}

function textPart(text: string, hint?: CacheHint): TextPart {
  return hint === undefined ? { type: 'text', text } : { type: 'text', text, cacheHint: hint };
}

function textParts(content: string | ChatTextPart[]): TextPart[] {
  if (typeof content === 'string') return content === '' ? [] : [textPart(content)];
  return content.map((part) => textPart(part.text, cacheHint(part.cache_control)));
}

function decodeImage(part: Extract<ChatUserPart, { type: 'image_url' }>, field: string): ImagePart {
  const { url, detail } = part.image_url;
  const data = url.startsWith('data:') ? parseDataUrl(url) : undefined;
  if (url.startsWith('data:') && data === undefined) {
    throw new GatewayError('invalid_request', `${field}: a data URL must be base64 encoded`, { param: field });
  }
  if (data === undefined && !/^https?:\/\//i.test(url)) {
    throw new GatewayError('invalid_request', `${field}: must be an https URL or a base64 data URL`, { param: field });
  }
  const image: ImagePart = {
    type: 'image',
    source: data === undefined ? { kind: 'url', url } : { kind: 'base64', mediaType: data.mediaType, data: data.data },
  };
  if (detail) image.detail = detail;
  const hint = cacheHint(part.cache_control);
  if (hint) image.cacheHint = hint;
  return image;
}

function decodeFile(part: Extract<ChatUserPart, { type: 'file' }>, field: string): DocumentPart {
  const { file_data: fileData, file_id: fileId, filename } = part.file;
  let document: DocumentPart;
  if (fileData) {
    const data = parseDataUrl(fileData);
    // OpenAI documents `file_data` as a data URL; bare base64 is taken as a PDF, the only file type it reads.
    document = {
      type: 'document',
      source: data
        ? { kind: 'base64', mediaType: data.mediaType, data: data.data }
        : { kind: 'base64', mediaType: 'application/pdf', data: fileData },
    };
  } else if (fileId) {
    document = { type: 'document', source: { kind: 'file', fileId } };
  } else {
    throw new GatewayError('invalid_request', `${field}: needs file_data or file_id`, { param: field });
  }
  if (filename) document.title = filename;
  return document;
}

function decodeUserContent(content: string | ChatUserPart[], field: string): ContentPart[] {
  if (typeof content === 'string') return content === '' ? [] : [textPart(content)];
  return content.map((part, index): ContentPart => {
    const partField = `${field}[${index}]`;
    switch (part.type) {
      case 'text':
        return textPart(part.text, cacheHint(part.cache_control));
      case 'image_url':
        return decodeImage(part, `${partField}.image_url.url`);
      case 'file':
        return decodeFile(part, `${partField}.file`);
      case 'input_audio':
        throw new GatewayError('unsupported_feature', `${partField}: audio input is not supported`, { param: partField });
    }
  });
}

function decodeReasoning(message: AssistantMessage, field: string, warnings: TranslationWarning[]): ReasoningPart[] {
  if (message.reasoning_signature) {
    const parts = unwrapReasoningEnvelope(message.reasoning_signature);
    // The envelope holds the exact blocks (texts included); reasoning_content is its plain-text view.
    if (parts) return parts;
    warnings.push({ field: `${field}.reasoning_signature`, message: 'not a value this gateway issued; ignored' });
  }
  return message.reasoning_content ? [{ type: 'reasoning', text: message.reasoning_content }] : [];
}

function decodeAssistant(
  message: AssistantMessage,
  field: string,
  names: Map<string, string>,
  warnings: TranslationWarning[],
  context: CodecContext,
): ContentPart[] {
  const parts: ContentPart[] = decodeReasoning(message, field, warnings);
  const refusals: string[] = [];
  if (typeof message.content === 'string') {
    if (message.content !== '') parts.push(textPart(message.content));
  } else if (message.content) {
    for (const part of message.content) {
      if (part.type === 'text') parts.push(textPart(part.text, cacheHint(part.cache_control)));
      else refusals.push(part.refusal);
    }
  }
  if (message.refusal) refusals.push(message.refusal);
  for (const text of refusals) parts.push({ type: 'refusal', text });
  for (const call of message.tool_calls ?? []) {
    const { id, signature } = recoverToolCallId(call.id, context);
    const args = call.function.arguments;
    const part: ToolCallPart = {
      type: 'tool_call',
      id,
      name: call.function.name,
      argumentsJson: typeof args === 'string' ? args : JSON.stringify(args),
    };
    if (signature) part.signature = signature;
    names.set(id, call.function.name);
    parts.push(part);
  }
  return parts;
}

function decodeMessages(
  messages: ChatMessage[],
  warnings: TranslationWarning[],
  context: CodecContext,
): { system: SystemPart[]; turns: Turn[] } {
  const system: SystemPart[] = [];
  const turns: Turn[] = [];
  // Chat tool messages carry no name; Generate-Content needs it, so recover it from the calls.
  const names = new Map<string, string>();
  let toolTurn: Turn | undefined;
  messages.forEach((message, index) => {
    const field = `messages[${index}]`;
    if (message.role !== 'tool') toolTurn = undefined;
    if ('name' in message && message.name) {
      warnings.push({ field: `${field}.name`, message: 'participant names have no equivalent; dropped' });
    }
    switch (message.role) {
      case 'system':
      case 'developer':
        if (turns.length > 0) {
          warnings.push({ field, message: `${message.role} message moved to the system prompt` });
        }
        for (const part of textParts(message.content)) system.push(part);
        break;
      case 'user':
        turns.push({ role: 'user', parts: decodeUserContent(message.content, `${field}.content`) });
        break;
      case 'assistant':
        turns.push({ role: 'assistant', parts: decodeAssistant(message, field, names, warnings, context) });
        break;
      case 'tool': {
        const { id } = recoverToolCallId(message.tool_call_id, context);
        const name = names.get(id);
        const result: ContentPart = { type: 'tool_result', callId: id, content: textParts(message.content) };
        if (name !== undefined) result.name = name;
        // Consecutive tool messages answer one assistant turn: one user turn, as Messages needs.
        if (toolTurn === undefined) {
          toolTurn = { role: 'user', parts: [] };
          turns.push(toolTurn);
        }
        toolTurn.parts.push(result);
        break;
      }
    }
  });
  return { system, turns };
}

function decodeTools(body: ChatRequest): { tools: ToolDefinition[]; builtinTools: BuiltinTool[] } {
  const tools: ToolDefinition[] = [];
  const builtinTools: BuiltinTool[] = [];
  for (const tool of body.tools ?? []) {
    if (isFunctionTool(tool)) {
      const fn = tool.function;
      const definition: ToolDefinition = {
        name: fn.name,
        parameters: fn.parameters ?? { type: 'object', properties: {} },
      };
      if (fn.description) definition.description = fn.description;
      if (typeof fn.strict === 'boolean') definition.strict = fn.strict;
      tools.push(definition);
    } else {
      builtinTools.push({ protocol: 'chat', value: { ...tool } });
    }
  }
  return { tools, builtinTools };
}

function decodeToolChoice(choice: ChatRequest['tool_choice'], warnings: TranslationWarning[]): ToolChoice | undefined {
  if (choice === null || choice === undefined) return undefined;
  if (typeof choice === 'string') return { type: choice };
  if (choice.type === 'function') return { type: 'tool', name: choice.function.name };
  warnings.push({ field: 'tool_choice.allowed_tools.tools', message: 'the allowed-tools subset has no equivalent; its mode is kept' });
  return { type: choice.allowed_tools.mode };
}

function decodeSampling(body: ChatRequest): Sampling {
  const sampling: Sampling = {};
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens !== null && maxTokens !== undefined) sampling.maxOutputTokens = maxTokens;
  if (body.temperature !== null && body.temperature !== undefined) sampling.temperature = body.temperature;
  if (body.top_p !== null && body.top_p !== undefined) sampling.topP = body.top_p;
  if (body.top_k !== null && body.top_k !== undefined) sampling.topK = body.top_k;
  if (body.stop !== null && body.stop !== undefined) sampling.stop = typeof body.stop === 'string' ? [body.stop] : body.stop;
  if (body.seed !== null && body.seed !== undefined) sampling.seed = body.seed;
  if (body.n !== null && body.n !== undefined) sampling.n = body.n;
  if (body.presence_penalty !== null && body.presence_penalty !== undefined) sampling.presencePenalty = body.presence_penalty;
  if (body.frequency_penalty !== null && body.frequency_penalty !== undefined) sampling.frequencyPenalty = body.frequency_penalty;
  if (body.logprobs !== null && body.logprobs !== undefined) sampling.logprobs = body.logprobs;
  if (body.top_logprobs !== null && body.top_logprobs !== undefined) sampling.topLogprobs = body.top_logprobs;
  return sampling;
}

function decodeResponseFormat(format: ChatRequest['response_format']): ResponseFormat | undefined {
  if (!format) return undefined;
  switch (format.type) {
    case 'text':
      return { type: 'text' };
    case 'json_object':
      return { type: 'json_object' };
    case 'json_schema': {
      const spec = format.json_schema;
      const result: ResponseFormat = { type: 'json_schema', name: spec.name ?? 'response', schema: spec.schema ?? {} };
      if (typeof spec.strict === 'boolean') result.strict = spec.strict;
      if (spec.description) result.description = spec.description;
      return result;
    }
  }
}

export function decodeChatRequest(body: unknown, context: CodecContext): DecodedRequest {
  const parsed = chatRequestSchema.safeParse(body);
  if (!parsed.success) throw invalidRequestFromZod(parsed.error);
  const data = parsed.data;
  const warnings: TranslationWarning[] = [];
  const { system, turns } = decodeMessages(data.messages, warnings, context);
  const { tools, builtinTools } = decodeTools(data);
  const request: IrRequest = {
    model: data.model,
    system,
    turns,
    tools,
    builtinTools,
    sampling: decodeSampling(data),
    stream: data.stream === true,
  };
  const toolChoice = decodeToolChoice(data.tool_choice, warnings);
  if (toolChoice) request.toolChoice = toolChoice;
  if (typeof data.parallel_tool_calls === 'boolean') request.parallelToolCalls = data.parallel_tool_calls;
  const responseFormat = decodeResponseFormat(data.response_format);
  if (responseFormat) request.responseFormat = responseFormat;
  if (data.reasoning_effort) {
    request.reasoning =
      data.reasoning_effort === 'none'
        ? { effort: 'none', disabled: true }
        : // A Chat client can show reasoning (`reasoning_content`), so ask targets that hide it by default.
          { effort: data.reasoning_effort, includeThoughts: true };
  }
  if (data.stream_options?.include_usage === true) request.includeUsage = true;
  if (data.user) request.user = data.user;
  if (data.metadata) request.metadata = data.metadata;
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (!KNOWN_REQUEST_FIELDS.has(key)) extra[key] = value;
  }
  if (Object.keys(extra).length > 0) request.extensions = { protocol: 'chat', fields: extra };
  return { request, warnings };
}
