/** A Responses client body → the IR request (validated with zod; errors name the field). */
import type { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error';
import { deepestIssue, fieldPath } from '../../errors/zod-issue';
import type { ContentPart, ImagePart, Role, TextPart, Turn } from '../../ir/parts';
import type { BuiltinTool, IrRequest, ReasoningConfig, ResponseFormat, SystemPart, ToolChoice, ToolDefinition } from '../../ir/request';
import type { TranslationWarning } from '../../ir/warning';
import type { CodecContext, DecodedRequest } from '../codec';
import { fileFieldsToSource, imageUrlToSource } from './media-source';
import { decodeCallId, decodeReasoningCarrier, isForeignCarrier } from './opaque-carrier';
import {
  flattenNamespaceTool,
  freeformToolDefinition,
  freeformToolSchema,
  namespaceToolSchema,
  namespacedToolName,
} from './tool-namespaces';
import {
  MAPPED_REQUEST_FIELDS,
  additionalToolsItemSchema,
  customToolCallItemSchema,
  toolEntrySchema,
  functionCallItemSchema,
  functionCallOutputItemSchema,
  functionToolSchema,
  messageItemSchema,
  otherItemSchema,
  reasoningItemSchema,
  responsesRequestSchema,
  type MessageContent,
  type ResponsesRequestBody,
} from './request-schema';

type PathSegment = PropertyKey;

/** The first zod issue as a 400 naming the field, e.g. `input[2].content[0].image_url`. */
function invalid(error: z.ZodError, prefix: readonly PathSegment[]): GatewayError {
  const first = error.issues[0];
  const issue = first === undefined ? { path: [], message: 'invalid request body' } : deepestIssue(first);
  const param = fieldPath([...prefix, ...issue.path]);
  return new GatewayError('invalid_request', param === '' ? issue.message : `Invalid '${param}': ${issue.message}`, { param });
}

function parseWith<T>(schema: z.ZodType<T>, value: unknown, prefix: readonly PathSegment[]): T {
  const result = schema.safeParse(value);
  if (!result.success) throw invalid(result.error, prefix);
  return result.data;
}

/** Builds turns, merging consecutive items of one role (a tool call joins its assistant text). */
class TurnBuilder {
  readonly turns: Turn[] = [];

  add(role: Role, parts: ContentPart[]): void {
    if (parts.length === 0) return;
    const last = this.turns[this.turns.length - 1];
    if (last !== undefined && last.role === role) last.parts.push(...parts);
    else this.turns.push({ role, parts });
  }
}

function contentToParts(content: MessageContent[], path: string, warnings: TranslationWarning[]): ContentPart[] {
  const parts: ContentPart[] = [];
  content.forEach((block, index) => {
    switch (block.type) {
      case 'input_text':
      case 'output_text':
        parts.push({ type: 'text', text: block.text });
        break;
      case 'refusal':
        parts.push({ type: 'refusal', text: block.refusal });
        break;
      case 'input_image': {
        const part = imagePart(block.image_url, block.file_id, block.detail);
        if (part === undefined) {
          throw new GatewayError('invalid_request', `Invalid '${path}[${index}]': input_image needs image_url or file_id`, {
            param: `${path}[${index}]`,
          });
        }
        parts.push(part);
        break;
      }
      case 'input_file': {
        const source = fileFieldsToSource(block);
        if (source === undefined) {
          throw new GatewayError('invalid_request', `Invalid '${path}[${index}]': input_file needs file_data, file_url or file_id`, {
            param: `${path}[${index}]`,
          });
        }
        parts.push({ type: 'document', source, ...(block.filename ? { title: block.filename } : {}) });
        break;
      }
      default:
        warnings.push({ field: `${path}[${index}]`, message: 'unknown content type dropped' });
    }
  });
  return parts;
}

function imagePart(
  imageUrl: string | null | undefined,
  fileId: string | null | undefined,
  detail: 'low' | 'high' | 'auto' | null | undefined,
): ImagePart | undefined {
  const source = imageUrl ? imageUrlToSource(imageUrl) : fileId ? { kind: 'file' as const, fileId } : undefined;
  if (source === undefined) return undefined;
  return { type: 'image', source, ...(detail ? { detail } : {}) };
}

/** An item without `type` is a message (the easy input form). */
function itemType(raw: unknown, index: number): string {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new GatewayError('invalid_request', `Invalid 'input[${index}]': expected an item object`, { param: `input[${index}]` });
  }
  const type: unknown = (raw as Record<string, unknown>).type;
  if (type === undefined) return 'message';
  if (typeof type !== 'string' || type === '') {
    throw new GatewayError('invalid_request', `Invalid 'input[${index}].type': expected a string`, { param: `input[${index}].type` });
  }
  return type;
}

function decodeInput(
  input: string | unknown[],
  system: SystemPart[],
  warnings: TranslationWarning[],
  /** Tools offered by `additional_tools` items (Codex's code mode), collected with their paths. */
  additionalTools: Array<{ tool: unknown; path: PathSegment[] }>,
  context: CodecContext,
): Turn[] {
  const builder = new TurnBuilder();
  if (typeof input === 'string') {
    builder.add('user', [{ type: 'text', text: input }]);
    return builder.turns;
  }
  // Chat-less item lists carry no name on tool outputs: remember each call's name by call id.
  const callNames = new Map<string, string>();
  const addCall = (callId: string, namespace: string | null | undefined, member: string, argumentsJson: string): void => {
    const { id, signature } = decodeCallId(callId, context);
    const name = namespace ? namespacedToolName(namespace, member) : member;
    callNames.set(id, name);
    builder.add('assistant', [{ type: 'tool_call', id, name, argumentsJson, ...(signature ? { signature } : {}) }]);
  };
  input.forEach((raw, index) => {
    const prefix = ['input', index];
    switch (itemType(raw, index)) {
      case 'message': {
        const item = parseWith(messageItemSchema, raw, prefix);
        const path = `input[${index}].content`;
        const parts: ContentPart[] =
          typeof item.content === 'string' ? [{ type: 'text', text: item.content }] : contentToParts(item.content, path, warnings);
        if (item.role === 'system' || item.role === 'developer') {
          if (builder.turns.length > 0) {
            warnings.push({ field: `input[${index}]`, message: `${item.role} message moved to the system prompt` });
          }
          for (const part of parts) {
            if (part.type === 'text') system.push({ type: 'text', text: part.text });
            else warnings.push({ field: path, message: `${part.type} content in a ${item.role} message dropped` });
          }
        } else {
          builder.add(item.role, parts);
        }
        break;
      }
      case 'function_call': {
        const item = parseWith(functionCallItemSchema, raw, prefix);
        addCall(item.call_id, item.namespace, item.name, item.arguments);
        break;
      }
      // A custom (freeform) tool's call carries its raw input as the one `input` argument.
      case 'custom_tool_call': {
        const item = parseWith(customToolCallItemSchema, raw, prefix);
        addCall(item.call_id, item.namespace, item.name, JSON.stringify({ input: item.input }));
        break;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const item = parseWith(functionCallOutputItemSchema, raw, prefix);
        const { id } = decodeCallId(item.call_id, context);
        const content: Array<TextPart | ImagePart> = [];
        if (typeof item.output === 'string') {
          content.push({ type: 'text', text: item.output });
        } else {
          item.output.forEach((block, blockIndex) => {
            if (block.type === 'input_text') content.push({ type: 'text', text: block.text });
            else if (block.type === 'input_image') {
              const part = imagePart(block.image_url, block.file_id, block.detail);
              if (part !== undefined) content.push(part);
              else warnings.push({ field: `input[${index}].output[${blockIndex}]`, message: 'empty input_image dropped' });
            } else {
              warnings.push({ field: `input[${index}].output[${blockIndex}]`, message: 'files in tool output are not supported; dropped' });
            }
          });
        }
        const name = callNames.get(id);
        builder.add('user', [{ type: 'tool_result', callId: id, ...(name !== undefined ? { name } : {}), content }]);
        break;
      }
      case 'additional_tools': {
        const item = parseWith(additionalToolsItemSchema, raw, prefix);
        item.tools.forEach((tool, toolIndex) => additionalTools.push({ tool, path: [...prefix, 'tools', toolIndex] }));
        break;
      }
      case 'reasoning': {
        const item = parseWith(reasoningItemSchema, raw, prefix);
        const summary = item.summary.map((s) => s.text);
        const text = summary.length > 0 ? summary.join('\n\n') : (item.content ?? []).map((c) => c.text).join('');
        const carried = item.encrypted_content ? decodeReasoningCarrier(item.encrypted_content) : {};
        // An item id is the provider's own only when the payload is not one of our carriers.
        const ownId = item.id && !(item.encrypted_content && isForeignCarrier(item.encrypted_content));
        builder.add('assistant', [
          {
            type: 'reasoning',
            text,
            ...carried,
            ...(ownId && item.id ? { itemId: { origin: 'responses' as const, value: item.id } } : {}),
          },
        ]);
        break;
      }
      // A compaction item stands for the conversation before it: read on the user's side. The
      // gateway's own ones are opened into their summary once the key's account is known.
      case 'compaction': {
        const value = parseWith(otherItemSchema, raw, prefix);
        builder.add('user', [{ type: 'native', protocol: 'responses', value: { ...value } }]);
        break;
      }
      // A request for compaction, not content: the pipeline answers it (see compaction.ts).
      case 'compaction_trigger':
        break;
      default: {
        // Server tool calls, item references and the like: meaningful to a Responses upstream only.
        const value = parseWith(otherItemSchema, raw, prefix);
        builder.add('assistant', [{ type: 'native', protocol: 'responses', value: { ...value } }]);
      }
    }
  });
  return builder.turns;
}

/** `tools`, then the tools of `additional_tools` input items, each with its path for errors. */
function decodeTools(
  entries: ReadonlyArray<{ tool: unknown; path: PathSegment[] }>,
  warnings: TranslationWarning[],
): { tools: ToolDefinition[]; builtinTools: BuiltinTool[] } {
  const tools: ToolDefinition[] = [];
  const builtinTools: BuiltinTool[] = [];
  entries.forEach(({ tool: entry, path }) => {
    const raw = parseWith(toolEntrySchema, entry, path);
    if (raw.type === 'namespace') {
      tools.push(...flattenNamespaceTool(parseWith(namespaceToolSchema, raw, path), fieldPath(path), warnings));
      return;
    }
    if (raw.type === 'custom') {
      tools.push(freeformToolDefinition(parseWith(freeformToolSchema, raw, path)));
      return;
    }
    if (raw.type !== 'function') {
      builtinTools.push({ protocol: 'responses', value: { ...raw } });
      return;
    }
    const tool = parseWith(functionToolSchema, raw, path);
    tools.push({
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      parameters: tool.parameters ?? { type: 'object', properties: {} },
      ...(tool.strict !== null && tool.strict !== undefined ? { strict: tool.strict } : {}),
    });
  });
  return { tools, builtinTools };
}

function decodeToolChoice(
  choice: ResponsesRequestBody['tool_choice'],
  extensionFields: Record<string, unknown>,
  warnings: TranslationWarning[],
): ToolChoice | undefined {
  if (choice === null || choice === undefined) return undefined;
  if (typeof choice === 'string') return { type: choice };
  if (choice.type === 'function') {
    if ('name' in choice && typeof choice.name === 'string') return { type: 'tool', name: choice.name };
    const nested = 'function' in choice ? choice.function : undefined;
    if (nested !== null && typeof nested === 'object' && 'name' in nested && typeof nested.name === 'string') {
      return { type: 'tool', name: nested.name };
    }
    throw new GatewayError('invalid_request', "Invalid 'tool_choice': a function choice needs a name", { param: 'tool_choice' });
  }
  // Hosted-tool and allowed-tools choices have no IR form: kept for a Responses upstream only.
  extensionFields.tool_choice = choice;
  warnings.push({ field: 'tool_choice', message: `tool_choice type '${choice.type}' is kept only for Responses upstreams` });
  return undefined;
}

function decodeResponseFormat(body: ResponsesRequestBody): ResponseFormat | undefined {
  const format = body.text?.format ?? body.response_format;
  if (format === null || format === undefined) return undefined;
  if (format.type === 'text') return { type: 'text' };
  if (format.type === 'json_object') return { type: 'json_object' };
  const spec =
    'json_schema' in format && format.json_schema !== null && typeof format.json_schema === 'object'
      ? (format.json_schema as {
          name?: string | null;
          schema: Record<string, unknown>;
          strict?: boolean | null;
          description?: string | null;
        })
      : (format as { name?: string | null; schema: Record<string, unknown>; strict?: boolean | null; description?: string | null });
  return {
    type: 'json_schema',
    name: spec.name ?? 'response',
    schema: spec.schema,
    ...(spec.strict !== null && spec.strict !== undefined ? { strict: spec.strict } : {}),
    ...(spec.description ? { description: spec.description } : {}),
  };
}

function decodeReasoning(body: ResponsesRequestBody): ReasoningConfig | undefined {
  const reasoning = body.reasoning;
  if (reasoning === null || reasoning === undefined) return undefined;
  const config: ReasoningConfig = {};
  if (reasoning.effort) {
    config.effort = reasoning.effort;
    if (reasoning.effort === 'none') config.disabled = true;
  }
  if (reasoning.summary) {
    config.summary = reasoning.summary;
    config.includeThoughts = true;
  }
  return Object.keys(config).length > 0 ? config : undefined;
}

export function decodeResponsesRequest(body: unknown, context: CodecContext): DecodedRequest {
  const parsed = parseWith(responsesRequestSchema, body, []);
  const warnings: TranslationWarning[] = [];
  const extensionFields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!MAPPED_REQUEST_FIELDS.includes(key) && value !== undefined) extensionFields[key] = value;
  }
  if (parsed.text) {
    const { format: _format, ...rest } = parsed.text;
    if (Object.keys(rest).length > 0) extensionFields.text = rest;
  }

  const system: SystemPart[] = parsed.instructions ? [{ type: 'text', text: parsed.instructions }] : [];
  const additionalTools: Array<{ tool: unknown; path: PathSegment[] }> = [];
  const turns = decodeInput(parsed.input, system, warnings, additionalTools, context);
  const { tools, builtinTools } = decodeTools(
    [...(parsed.tools ?? []).map((tool, index) => ({ tool, path: ['tools', index] })), ...additionalTools],
    warnings,
  );
  const toolChoice = decodeToolChoice(parsed.tool_choice, extensionFields, warnings);
  const responseFormat = decodeResponseFormat(parsed);
  const reasoning = decodeReasoning(parsed);

  const request: IrRequest = {
    model: parsed.model,
    system,
    turns,
    tools,
    builtinTools,
    sampling: {
      ...(parsed.max_output_tokens != null ? { maxOutputTokens: parsed.max_output_tokens } : {}),
      ...(parsed.temperature != null ? { temperature: parsed.temperature } : {}),
      ...(parsed.top_p != null ? { topP: parsed.top_p } : {}),
      ...(parsed.top_logprobs != null ? { topLogprobs: parsed.top_logprobs } : {}),
    },
    stream: parsed.stream === true,
    ...(toolChoice !== undefined ? { toolChoice } : {}),
    ...(parsed.parallel_tool_calls != null ? { parallelToolCalls: parsed.parallel_tool_calls } : {}),
    ...(responseFormat !== undefined ? { responseFormat } : {}),
    ...(reasoning !== undefined ? { reasoning } : {}),
    ...(parsed.user ? { user: parsed.user } : {}),
    ...(parsed.metadata ? { metadata: parsed.metadata } : {}),
    ...(parsed.previous_response_id ? { previousResponseId: parsed.previous_response_id } : {}),
    ...(parsed.store != null ? { store: parsed.store } : {}),
    ...(Object.keys(extensionFields).length > 0 ? { extensions: { protocol: 'responses' as const, fields: extensionFields } } : {}),
  };
  return { request, warnings };
}
