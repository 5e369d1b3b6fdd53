/**
 * The playground's request per protocol (text, optional image, optional tool) and how to read each
 * protocol's stream: text deltas, tool-call arguments, and the final usage.
 */
export interface PlaygroundInput {
  model: string;
  prompt: string;
  image?: { mediaType: string; data: string };
  tool?: { name: string; description?: string; parameters: Record<string, unknown> };
}

export interface StreamPiece {
  text?: string;
  tool?: string;
  usage?: Record<string, unknown>;
}

export interface ProtocolCall {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  read(event: string, data: unknown): StreamPiece;
}

/** Reads a path in a foreign stream frame, defensively: anything missing is undefined. */
function at(value: unknown, ...path: Array<string | number>): unknown {
  let current = value;
  for (const step of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[step];
  }
  return current;
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');
const record = (value: unknown) => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined);

export function protocolCall(protocol: string, input: PlaygroundInput, key: string): ProtocolCall {
  const dataUrl = input.image ? `data:${input.image.mediaType};base64,${input.image.data}` : undefined;
  const json = { 'content-type': 'application/json' };
  switch (protocol) {
    case 'messages':
      return {
        url: '/v1/messages',
        headers: { ...json, 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        body: {
          model: input.model,
          max_tokens: 1024,
          stream: true,
          messages: [
            {
              role: 'user',
              content: [
                ...(input.image
                  ? [{ type: 'image', source: { type: 'base64', media_type: input.image.mediaType, data: input.image.data } }]
                  : []),
                { type: 'text', text: input.prompt },
              ],
            },
          ],
          ...(input.tool
            ? { tools: [{ name: input.tool.name, description: input.tool.description, input_schema: input.tool.parameters }] }
            : {}),
        },
        read(event, data) {
          if (event === 'content_block_delta' && at(data, 'delta', 'type') === 'text_delta')
            return { text: text(at(data, 'delta', 'text')) };
          if (event === 'content_block_delta' && at(data, 'delta', 'type') === 'input_json_delta')
            return { tool: text(at(data, 'delta', 'partial_json')) };
          if (event === 'content_block_start' && at(data, 'content_block', 'type') === 'tool_use')
            return { tool: `${text(at(data, 'content_block', 'name'))}(` };
          if (event === 'message_delta') return { usage: record(at(data, 'usage')) };
          if (event === 'message_start') return { usage: record(at(data, 'message', 'usage')) };
          return {};
        },
      };
    case 'responses':
      return {
        url: '/v1/responses',
        headers: { ...json, authorization: `Bearer ${key}` },
        body: {
          model: input.model,
          stream: true,
          input: [
            {
              role: 'user',
              content: [{ type: 'input_text', text: input.prompt }, ...(dataUrl ? [{ type: 'input_image', image_url: dataUrl }] : [])],
            },
          ],
          ...(input.tool
            ? {
                tools: [
                  { type: 'function', name: input.tool.name, description: input.tool.description, parameters: input.tool.parameters },
                ],
              }
            : {}),
        },
        read(event, data) {
          const type = text(at(data, 'type')) || event;
          if (type === 'response.output_text.delta') return { text: text(at(data, 'delta')) };
          if (type === 'response.function_call_arguments.delta') return { tool: text(at(data, 'delta')) };
          if (type === 'response.output_item.added' && at(data, 'item', 'type') === 'function_call')
            return { tool: `${text(at(data, 'item', 'name'))}(` };
          if (type === 'response.completed') return { usage: record(at(data, 'response', 'usage')) };
          return {};
        },
      };
    case 'chat':
      return {
        url: '/v1/chat/completions',
        headers: { ...json, authorization: `Bearer ${key}` },
        body: {
          model: input.model,
          stream: true,
          stream_options: { include_usage: true },
          messages: [
            {
              role: 'user',
              content: [{ type: 'text', text: input.prompt }, ...(dataUrl ? [{ type: 'image_url', image_url: { url: dataUrl } }] : [])],
            },
          ],
          ...(input.tool
            ? {
                tools: [
                  {
                    type: 'function',
                    function: { name: input.tool.name, description: input.tool.description, parameters: input.tool.parameters },
                  },
                ],
              }
            : {}),
        },
        read(_event, data) {
          const call = at(data, 'choices', 0, 'delta', 'tool_calls', 0, 'function');
          const name = text(at(call, 'name'));
          return {
            text: text(at(data, 'choices', 0, 'delta', 'content')) || undefined,
            tool: call ? `${name ? `${name}(` : ''}${text(at(call, 'arguments'))}` : undefined,
            usage: record(at(data, 'usage')),
          };
        },
      };
    case 'generate-content':
      return {
        url: `/v1beta/models/${encodeURIComponent(input.model)}:streamGenerateContent?alt=sse`,
        headers: { ...json, 'x-goog-api-key': key },
        body: {
          contents: [
            {
              role: 'user',
              parts: [
                { text: input.prompt },
                ...(input.image ? [{ inlineData: { mimeType: input.image.mediaType, data: input.image.data } }] : []),
              ],
            },
          ],
          ...(input.tool
            ? {
                tools: [
                  {
                    functionDeclarations: [
                      { name: input.tool.name, description: input.tool.description, parameters: input.tool.parameters },
                    ],
                  },
                ],
              }
            : {}),
        },
        read(_event, data) {
          const parts = at(data, 'candidates', 0, 'content', 'parts');
          const list = Array.isArray(parts) ? parts : [];
          const call = list.map((part) => at(part, 'functionCall')).find(Boolean);
          return {
            text: list.map((part) => text(at(part, 'text'))).join('') || undefined,
            tool: call ? `${text(at(call, 'name'))}(${JSON.stringify(at(call, 'args') ?? {})})` : undefined,
            usage: record(at(data, 'usageMetadata')),
          };
        },
      };
    default:
      throw new Error(`unknown protocol ${protocol}`);
  }
}
