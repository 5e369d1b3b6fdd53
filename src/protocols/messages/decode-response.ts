/** A complete Messages provider answer → the IR, with tool names restored and normalized usage. */
import { GatewayError } from '../../errors/gateway-error';
import type { FinishReason } from '../../ir/finish-reason';
import type { ContentPart } from '../../ir/parts';
import type { IrResponse } from '../../ir/response';
import type { UpstreamDecodeContext } from '../codec';
import { objectToArguments } from '../shared/tool-arguments';
import { restoreToolName } from '../shared/tool-names';
import { convertMessagesUsage } from './convert-usage';
import { decodeMessagesStreamError } from './decode-error';
import { mapMessagesFinishReason } from './map-finish-reason';
import { readString } from '../shared/read-json';
import { upstreamResponseSchema, type UpstreamBlock } from './response-schema';

function decodeBlock(block: UpstreamBlock, context: UpstreamDecodeContext): ContentPart {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: readString(block, 'text') ?? '' };
    case 'thinking': {
      const signature = readString(block, 'signature');
      return {
        type: 'reasoning',
        text: readString(block, 'thinking') ?? '',
        ...(signature ? { signature: { origin: 'messages', value: signature } } : {}),
      };
    }
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redacted: { origin: 'messages', value: readString(block, 'data') ?? '' } };
    case 'tool_use': {
      const name = readString(block, 'name') ?? '';
      // The forced structured-output tool: its input is the answer.
      if (context.jsonToolName !== undefined && name === context.jsonToolName)
        return { type: 'text', text: objectToArguments(block.input) };
      return {
        type: 'tool_call',
        id: readString(block, 'id') ?? '',
        name: restoreToolName(name, context.toolNames),
        argumentsJson: objectToArguments(block.input),
      };
    }
    default:
      return { type: 'native', protocol: 'messages', value: block };
  }
}

/** With the forced `json` tool the call is the answer, so the model's `tool_use` stop is a normal stop. */
export function finishForJsonTool(finish: FinishReason, jsonToolUsed: boolean): FinishReason {
  return jsonToolUsed && finish.unified === 'tool_calls' ? { unified: 'stop', raw: finish.raw } : finish;
}

export function decodeMessagesResponse(body: unknown, context: UpstreamDecodeContext): IrResponse {
  const parsed = upstreamResponseSchema.safeParse(body);
  if (!parsed.success) {
    throw new GatewayError('upstream_error', 'the upstream answered a body that is not a Messages response', {
      upstream: { status: 200, body: JSON.stringify(body) },
    });
  }
  const response = parsed.data;
  if (response.type === 'error') throw decodeMessagesStreamError(response);

  const blocks = response.content ?? [];
  const parts = blocks.map((block) => decodeBlock(block, context));
  const jsonToolUsed =
    context.jsonToolName !== undefined && blocks.some((block) => block.type === 'tool_use' && block.name === context.jsonToolName);
  const finish = finishForJsonTool(mapMessagesFinishReason(response.stop_reason, response.stop_sequence), jsonToolUsed);
  // A refusal often comes with no content; its explanation becomes the IR refusal text.
  const explanation = response.stop_details?.explanation;
  if (finish.unified === 'content_filter' && explanation) parts.push({ type: 'refusal', text: explanation });

  return {
    id: response.id ?? context.newId('msg_'),
    model: response.model ?? '',
    parts,
    finish,
    usage: convertMessagesUsage(response.usage),
  };
}
