/**
 * OpenAI's official OpenAPI document (test/fixtures/openai-openapi, MIT) as a validator of the Chat
 * and Responses bodies the gateway emits and of the requests it sends to an OpenAI-protocol upstream.
 *
 * Read as the real API reads it:
 * - OpenAPI 3.0's `nullable: true`, which the document still uses, is read as "or null".
 * - Requests (`closed: true`): the real API refuses a field it does not define ("Unrecognized request
 *   argument"), while the document leaves most objects open; so every object the request schema
 *   names is closed (`unevaluatedProperties: false`) except where it is composed from parts.
 * - `oneOf` is read as `anyOf`: the document's unions overlap (a `type: "message"` input item is
 *   both an EasyInputMessage and an InputMessage; an output_text part both a text part and its
 *   annotated form), so "exactly one" fails bodies the real API takes. Every branch still validates.
 * - The document's known under-declarations (fields the real API sends or takes that it does not
 *   declare) are listed in UNDER_DECLARED with the reason, and accepted.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';

type Json = Record<string, unknown>;

const DOCUMENT = JSON.parse(readFileSync(path.join(__dirname, '../fixtures/openai-openapi/openapi.subset.json'), 'utf8')) as {
  components: { schemas: Record<string, Json> };
};

/**
 * What the document does not declare although the real API sends or accepts it. Each entry: the
 * schema, the property added (or the fields a request may leave out), and why.
 */
export type UnderDeclaration = { schema: string; at?: ReadonlyArray<string | number>; reason: string } & (
  { property: string; schemaOf: Json } | { optionalInRequests: ReadonlyArray<string> } | { enumValue: string }
);

export const UNDER_DECLARED: ReadonlyArray<UnderDeclaration> = [
  {
    schema: 'Response',
    at: ['allOf', 2],
    property: 'usage',
    schemaOf: { anyOf: [{ $ref: '#/components/schemas/ResponseUsage' }, { type: 'null' }] },
    reason:
      "the response object of `response.created` / `response.in_progress` carries `usage: null` (OpenAI's own stream does); the document types it as an object only",
  },
  {
    schema: 'ResponseErrorCode',
    enumValue: 'context_length_exceeded',
    reason:
      "OpenAI ends a streamed request whose prompt exceeds the context window with `response.failed` whose `error.code` is `context_length_exceeded` (Codex reads it as ContextWindowExceeded: codex-rs/codex-api/src/sse/responses.rs); the document's enum omits it",
  },
  {
    schema: 'ResponseUsage',
    property: 'reasoning_tokens',
    schemaOf: { type: 'integer' },
    reason:
      "not OpenAI's: the gateway's own top-level copy of output_tokens_details.reasoning_tokens (interface section 4), on answers to clients only",
  },
  {
    schema: 'CreateChatCompletionStreamResponse',
    property: 'usage',
    schemaOf: { anyOf: [{ $ref: '#/components/schemas/CompletionUsage' }, { type: 'null' }] },
    reason:
      'with stream_options.include_usage, OpenAI sends `usage: null` on every chunk but the last (its own API reference says so); the document types it as an object only',
  },
  {
    schema: 'ModelResponseProperties',
    property: 'user',
    schemaOf: { type: ['string', 'null'] },
    reason: 'a Response object echoes `user: null` when none was sent; the document types it as a string only',
  },
  {
    schema: 'CreateChatCompletionStreamResponse',
    property: 'obfuscation',
    schemaOf: { type: 'string' },
    reason: 'OpenAI adds `obfuscation` padding to stream chunks unless stream_options.include_obfuscation is false; the document omits it',
  },
  {
    schema: 'ChatCompletionRequestAssistantMessage',
    property: 'annotations',
    schemaOf: { type: 'array' },
    reason:
      "OpenAI's Chat answers carry `annotations` (an empty list unless a search cites) on the assistant message, and its SDKs' way to go on with a conversation appends that message as it came; the request schema omits it",
  },
  {
    schema: 'OutputMessage',
    optionalInRequests: ['id', 'status'],
    reason:
      'an assistant turn sent back as input without the id and status of the answer it came from is taken (Codex sends every earlier assistant message so: codex-rs/protocol/src/models.rs, ResponseItem::Message never serializes its id and has no status); the document requires both wherever the item appears',
  },
  {
    schema: 'OutputTextContent',
    optionalInRequests: ['annotations', 'logprobs'],
    reason:
      'the text of such an assistant turn is taken without the annotations and logprobs of the answer (Codex sends `{type: output_text, text}` only: codex-rs/protocol/src/models.rs, ContentItem::OutputText); the document requires both wherever the part appears',
  },
  // The compact endpoint's body declares only the model, input and prompt-cache fields, but Codex sends the turn's tool
  // and reasoning settings with it (openai/codex codex-rs/codex-api/src/common.rs, `CompactionInput`) and OpenAI takes them.
  ...(
    [
      ['tools', { $ref: '#/components/schemas/ToolsArray' }],
      ['parallel_tool_calls', { type: ['boolean', 'null'] }],
      ['reasoning', { anyOf: [{ $ref: '#/components/schemas/Reasoning' }, { type: 'null' }] }],
      ['text', { $ref: '#/components/schemas/ResponseTextParam' }],
    ] as const
  ).map(([property, schemaOf]) => ({
    schema: 'CompactResponseMethodPublicBody',
    property,
    schemaOf,
    reason: `Codex sends \`${property}\` to POST /v1/responses/compact (codex-rs/codex-api/src/common.rs, CompactionInput) and OpenAI's endpoint takes it; the document's compact body omits it`,
  })),
];

function nullableToType(schema: Json): void {
  if (schema.nullable !== true) return;
  delete schema.nullable;
  if (typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
}

/** Rewrites the document in place: nullable, closing (for requests), under-declarations. */
function prepare(node: unknown, close: boolean, composedPart: boolean): void {
  if (Array.isArray(node)) {
    for (const item of node) prepare(item, close, composedPart);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const schema = node as Json;
  nullableToType(schema);
  if (Array.isArray(schema.oneOf) && schema.anyOf === undefined) {
    schema.anyOf = schema.oneOf;
    delete schema.oneOf;
  }
  const ownProperties = schema.properties !== undefined || schema.allOf !== undefined;
  if (
    close &&
    !composedPart &&
    schema.properties !== undefined &&
    schema.additionalProperties === undefined &&
    schema.unevaluatedProperties === undefined
  ) {
    schema.unevaluatedProperties = false;
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && value !== null && typeof value === 'object') {
      for (const property of Object.values(value as Json)) prepare(property, close, false);
    } else if (key === 'allOf') {
      prepare(value, close, true);
    } else if (key === 'anyOf' || key === 'oneOf') {
      // A branch of an object that has properties of its own cannot close without refusing them.
      prepare(value, close, ownProperties || composedPart);
    } else if (key === 'items' || key === 'additionalProperties' || key === 'prefixItems' || key === 'not') {
      prepare(value, close, false);
    }
  }
}

function build(close: boolean): Ajv2020 {
  const document = structuredClone(DOCUMENT);
  const schemas = document.components.schemas;
  for (const entry of UNDER_DECLARED) {
    let target = schemas[entry.schema]!;
    for (const step of entry.at ?? []) target = (target as Record<string | number, unknown>)[step] as Json;
    if ('property' in entry) target.properties = { ...(target.properties as Json | undefined), [entry.property]: entry.schemaOf };
    else if ('enumValue' in entry) target.enum = [...(target.enum as unknown[]), entry.enumValue];
    else if (close) target.required = (target.required as string[]).filter((field) => !entry.optionalInRequests.includes(field));
  }
  // A named schema used as a part of an allOf is a part wherever it is used.
  const parts = new Set<string>();
  JSON.stringify(document, (key, value: unknown) => {
    if (key === 'allOf' && Array.isArray(value)) {
      for (const item of value)
        if (item && typeof item === 'object' && typeof (item as Json).$ref === 'string')
          parts.add(((item as Json).$ref as string).split('/').pop()!);
    }
    return value;
  });
  for (const [name, schema] of Object.entries(schemas)) prepare(schema, close, parts.has(name));
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true, discriminator: false });
  ajv.addSchema({ $id: 'openai', ...document });
  return ajv;
}

let open: Ajv2020 | undefined;
let closed: Ajv2020 | undefined;
const cache = new Map<string, ValidateFunction>();

function validator(schema: string, closeRequests: boolean): ValidateFunction {
  const cacheKey = `${closeRequests}:${schema}`;
  let validate = cache.get(cacheKey);
  if (!validate) {
    const ajv = closeRequests ? (closed ??= build(true)) : (open ??= build(false));
    validate = ajv.getSchema(`openai#/components/schemas/${schema}`)!;
    cache.set(cacheKey, validate);
  }
  return validate;
}

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map(
    (error) =>
      `${error.instancePath || '/'} ${error.message}${error.params && Object.keys(error.params).length ? ` ${JSON.stringify(error.params)}` : ''}`,
  );
}

/** Problems of a body the gateway emits to a client (the document's own openness). */
export function emittedProblems(schema: string, body: unknown): string[] {
  const validate = validator(schema, false);
  return validate(body) ? [] : describe(validate.errors);
}

/** The request bodies of the endpoints the gateway calls on an OpenAI-protocol upstream. */
export type OpenAiRequestSchema = 'CreateChatCompletionRequest' | 'CreateResponse' | 'CompactResponseMethodPublicBody';

/** Problems of a request the gateway sends upstream, read as strictly as the real API reads it. */
export function requestProblems(schema: OpenAiRequestSchema, body: unknown): string[] {
  const validate = validator(schema, true);
  return validate(body) ? [] : describe(validate.errors);
}
