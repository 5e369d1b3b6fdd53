/** A Messages client body → the IR (validated with zod; a bad field is a 400 naming it). */
import type { CacheHint, ContentPart, ImagePart, MediaSource, TextPart, Turn } from '../../ir/parts';
import type { BuiltinTool, IrRequest, ReasoningConfig, ResponseFormat, SystemPart, ToolChoice, ToolDefinition } from '../../ir/request';
import type { TranslationWarning } from '../../ir/warning';
import type { CodecContext, DecodedRequest } from '../codec';
import { budgetToEffort } from '../shared/reasoning-budget';
import { decodeClientThinkingSignature, decodeClientToolUseId } from './client-opaque';
import { parseClientField } from './parse-client-field';
import {
  KNOWN_REQUEST_FIELDS,
  customToolSchema,
  documentBlockSchema,
  imageBlockSchema,
  messagesRequestSchema,
  redactedThinkingBlockSchema,
  systemBlockSchema,
  textBlockSchema,
  thinkingBlockSchema,
  toolResultBlockSchema,
  toolUseBlockSchema,
  type CacheControl,
  type DocumentBlock,
  type ImageBlock,
  type MessageParam,
  type MessagesRequest,
} from './request-schema';
import type { JsonRecord } from '../shared/read-json';

type Block = Exclude<MessageParam['content'], string>[number];

/** State shared while walking the conversation. */
interface DecodeState {
  warnings: TranslationWarning[];
  /** Tool call id → name, so tool results carry the name Generate-Content needs. */
  callNames: Map<string, string>;
}

function cacheHint(control: CacheControl | null | undefined): CacheHint | undefined {
  if (!control) return undefined;
  return control.ttl ? { type: 'ephemeral', ttl: control.ttl } : { type: 'ephemeral' };
}

function withCacheHint<T extends object>(part: T, control: CacheControl | null | undefined): T {
  const hint = cacheHint(control);
  return hint ? { ...part, cacheHint: hint } : part;
}

function imageSource(source: ImageBlock['source']): MediaSource {
  switch (source.type) {
    case 'base64':
      return { kind: 'base64', mediaType: source.media_type, data: source.data };
    case 'url':
      return { kind: 'url', url: source.url };
    case 'file':
      return { kind: 'file', fileId: source.file_id };
  }
}

function decodeImage(block: unknown, path: string): ImagePart {
  const image = parseClientField(imageBlockSchema, block, path);
  return withCacheHint<ImagePart>({ type: 'image', source: imageSource(image.source) }, image.cache_control);
}

function decodeText(block: unknown, path: string, state: DecodeState): TextPart {
  const text = parseClientField(textBlockSchema, block, path);
  if (text.citations && text.citations.length > 0) {
    state.warnings.push({ field: `${path}.citations`, message: 'citations are not carried into the translated request' });
  }
  return withCacheHint<TextPart>({ type: 'text', text: text.text }, text.cache_control);
}

function decodeDocument(block: unknown, path: string, state: DecodeState): ContentPart {
  const document: DocumentBlock = parseClientField(documentBlockSchema, block, path);
  const source = document.source;
  let media: MediaSource;
  switch (source.type) {
    case 'base64':
      media = { kind: 'base64', mediaType: source.media_type, data: source.data };
      break;
    // Plain-text documents become base64 text/plain, which every protocol can carry as a file.
    case 'text':
      media = { kind: 'base64', mediaType: source.media_type ?? 'text/plain', data: Buffer.from(source.data, 'utf8').toString('base64') };
      break;
    case 'url':
      media = { kind: 'url', url: source.url };
      break;
    case 'file':
      media = { kind: 'file', fileId: source.file_id };
      break;
    // Custom-content documents have no IR shape: only a Messages upstream understands them.
    case 'content':
      return { type: 'native', protocol: 'messages', value: document };
  }
  if (document.context)
    state.warnings.push({ field: `${path}.context`, message: 'document context is not carried into the translated request' });
  if (document.citations !== undefined)
    state.warnings.push({ field: `${path}.citations`, message: 'document citations are not carried into the translated request' });
  const part: ContentPart = withCacheHint({ type: 'document' as const, source: media }, document.cache_control);
  return document.title ? { ...part, title: document.title } : part;
}

function warnCacheControl(control: unknown, path: string, state: DecodeState): void {
  if (control)
    state.warnings.push({
      field: `${path}.cache_control`,
      message: 'cache_control on this block type is not carried into the translated request',
    });
}

function decodeToolResult(block: unknown, path: string, state: DecodeState): ContentPart {
  const result = parseClientField(toolResultBlockSchema, block, path);
  warnCacheControl(result.cache_control, path, state);
  const content: Array<TextPart | ImagePart> = [];
  if (typeof result.content === 'string') {
    content.push({ type: 'text', text: result.content });
  } else if (result.content) {
    result.content.forEach((inner, k) => {
      const innerPath = `${path}.content.${k}`;
      if (inner.type === 'text') content.push(decodeText(inner, innerPath, state));
      else if (inner.type === 'image') content.push(decodeImage(inner, innerPath));
      // Claude Code's tool search answers with the names of the tools it loads; every tool is sent
      // to a translated upstream anyway, so the name is what is left to say.
      else if (inner.type === 'tool_reference' && typeof inner.tool_name === 'string')
        content.push({ type: 'text', text: `tool ${inner.tool_name}` });
      else
        state.warnings.push({
          field: innerPath,
          message: `a ${inner.type} block inside a tool result cannot be translated and was dropped`,
        });
    });
  }
  const callId = decodeClientToolUseId(result.tool_use_id).id;
  const name = state.callNames.get(callId);
  return {
    type: 'tool_result',
    callId,
    ...(name !== undefined ? { name } : {}),
    content,
    ...(result.is_error ? { isError: true } : {}),
  };
}

function decodeBlock(block: Block, path: string, state: DecodeState): ContentPart {
  switch (block.type) {
    case 'text':
      return decodeText(block, path, state);
    case 'image':
      return decodeImage(block, path);
    case 'document':
      return decodeDocument(block, path, state);
    case 'tool_use': {
      const call = parseClientField(toolUseBlockSchema, block, path);
      warnCacheControl(call.cache_control, path, state);
      const { id, signature } = decodeClientToolUseId(call.id);
      state.callNames.set(id, call.name);
      return {
        type: 'tool_call',
        id,
        name: call.name,
        argumentsJson: JSON.stringify(call.input ?? {}),
        ...(signature ? { signature } : {}),
      };
    }
    case 'tool_result':
      return decodeToolResult(block, path, state);
    case 'thinking': {
      const thinking = parseClientField(thinkingBlockSchema, block, path);
      return { type: 'reasoning', text: thinking.thinking, ...decodeClientThinkingSignature(thinking.signature ?? '') };
    }
    case 'redacted_thinking': {
      const redacted = parseClientField(redactedThinkingBlockSchema, block, path);
      return { type: 'reasoning', text: '', redacted: { origin: 'messages', value: redacted.data } };
    }
    // Server tool use and results, search results, container uploads and future block types.
    default:
      return { type: 'native', protocol: 'messages', value: block };
  }
}

type ConversationRole = 'user' | 'assistant';

function decodeTurn(message: MessageParam, role: ConversationRole, path: string, state: DecodeState): Turn {
  if (typeof message.content === 'string') {
    return { role, parts: [{ type: 'text', text: message.content }] };
  }
  const parts = message.content.map((block, j) => decodeBlock(block, `${path}.content.${j}`, state));
  return { role, parts };
}

/** A `system` / `developer` message inside `messages`: its text blocks become system instructions. */
function decodeSystemMessage(message: MessageParam, path: string): SystemPart[] {
  if (typeof message.content === 'string') return message.content === '' ? [] : [{ type: 'text', text: message.content }];
  return message.content.map((block, j) => {
    const text = parseClientField(systemBlockSchema, block, `${path}.content.${j}`);
    return withCacheHint<SystemPart>({ type: 'text', text: text.text }, text.cache_control);
  });
}

/** Conversation turns, and the system instructions found among them, in order. */
function decodeMessages(messages: readonly MessageParam[], state: DecodeState): { turns: Turn[]; system: SystemPart[] } {
  const turns: Turn[] = [];
  const system: SystemPart[] = [];
  messages.forEach((message, i) => {
    const path = `messages.${i}`;
    if (message.role === 'system' || message.role === 'developer') system.push(...decodeSystemMessage(message, path));
    else turns.push(decodeTurn(message, message.role, path, state));
  });
  return { turns, system };
}

function decodeSystem(system: MessagesRequest['system']): SystemPart[] {
  if (system === null || system === undefined) return [];
  if (typeof system === 'string') return system === '' ? [] : [{ type: 'text', text: system }];
  return system.map((block) => withCacheHint<SystemPart>({ type: 'text', text: block.text }, block.cache_control));
}

function decodeTools(tools: MessagesRequest['tools']): { tools: ToolDefinition[]; builtinTools: BuiltinTool[] } {
  const out = { tools: [] as ToolDefinition[], builtinTools: [] as BuiltinTool[] };
  (tools ?? []).forEach((entry, i) => {
    if (entry.type !== undefined && entry.type !== null && entry.type !== 'custom') {
      out.builtinTools.push({ protocol: 'messages', value: entry });
      return;
    }
    const tool = parseClientField(customToolSchema, entry, `tools.${i}`);
    const definition: ToolDefinition = withCacheHint({ name: tool.name, parameters: tool.input_schema }, tool.cache_control);
    if (tool.description !== undefined && tool.description !== null) definition.description = tool.description;
    if (tool.strict !== undefined && tool.strict !== null) definition.strict = tool.strict;
    out.tools.push(definition);
  });
  return out;
}

function decodeToolChoice(choice: MessagesRequest['tool_choice']): { toolChoice?: ToolChoice; parallelToolCalls?: boolean } {
  if (!choice) return {};
  const parallel = 'disable_parallel_tool_use' in choice && choice.disable_parallel_tool_use === true ? { parallelToolCalls: false } : {};
  switch (choice.type) {
    case 'auto':
      return { toolChoice: { type: 'auto' }, ...parallel };
    case 'any':
      return { toolChoice: { type: 'required' }, ...parallel };
    case 'tool':
      return { toolChoice: { type: 'tool', name: choice.name }, ...parallel };
    case 'none':
      return { toolChoice: { type: 'none' } };
  }
}

function decodeReasoning(request: MessagesRequest): ReasoningConfig | undefined {
  const effort = request.output_config?.effort ?? undefined;
  const thinking = request.thinking;
  if (!thinking) return effort ? { effort } : undefined;
  switch (thinking.type) {
    case 'enabled':
      return { budgetTokens: thinking.budget_tokens, effort: effort ?? budgetToEffort(thinking.budget_tokens), includeThoughts: true };
    case 'disabled':
      return { disabled: true };
    // Adaptive thinking lets the model decide how much to think; other protocols need an effort.
    case 'adaptive':
      return { effort: effort ?? 'medium', includeThoughts: true };
  }
}

function decodeResponseFormat(request: MessagesRequest): ResponseFormat | undefined {
  const format = request.output_config?.format ?? request.output_format;
  if (!format) return undefined;
  return { type: 'json_schema', name: 'response', schema: format.schema };
}

/** Fields the IR has no place for, replayed only to a Messages upstream. */
function collectExtensions(request: MessagesRequest): JsonRecord {
  const fields: JsonRecord = {};
  for (const [key, value] of Object.entries(request)) {
    if (!KNOWN_REQUEST_FIELDS.has(key)) fields[key] = value;
  }
  if (request.output_config) {
    const { format: _format, effort: _effort, ...rest } = request.output_config;
    if (Object.keys(rest).length > 0) fields.output_config = rest;
  }
  return fields;
}

export function decodeMessagesRequest(body: unknown, _context: CodecContext): DecodedRequest {
  const request = parseClientField(messagesRequestSchema, body, '');
  const state: DecodeState = { warnings: [], callNames: new Map() };
  const { turns, system } = decodeMessages(request.messages, state);
  const { tools, builtinTools } = decodeTools(request.tools);

  const ir: IrRequest = {
    model: request.model,
    system: [...decodeSystem(request.system), ...system],
    turns,
    tools,
    builtinTools,
    ...decodeToolChoice(request.tool_choice),
    sampling: { maxOutputTokens: request.max_tokens },
    stream: request.stream ?? false,
  };
  if (request.temperature !== undefined && request.temperature !== null) ir.sampling.temperature = request.temperature;
  if (request.top_p !== undefined && request.top_p !== null) ir.sampling.topP = request.top_p;
  if (request.top_k !== undefined && request.top_k !== null) ir.sampling.topK = request.top_k;
  if (request.stop_sequences && request.stop_sequences.length > 0) ir.sampling.stop = request.stop_sequences;
  const reasoning = decodeReasoning(request);
  if (reasoning) ir.reasoning = reasoning;
  const responseFormat = decodeResponseFormat(request);
  if (responseFormat) ir.responseFormat = responseFormat;
  const user = request.metadata?.user_id;
  if (typeof user === 'string' && user !== '') ir.user = user;
  const extensions = collectExtensions(request);
  if (Object.keys(extensions).length > 0) ir.extensions = { protocol: 'messages', fields: extensions };
  return { request: ir, warnings: state.warnings };
}
