import { GatewayError } from '../../errors/gateway-error';
import type { IrResponse } from '../../ir/response';
import type { UpstreamDecodeContext } from '../codec';
import { restoreToolName } from '../shared/tool-names';
import { convertGenerateContentUsage } from './convert-generate-content-usage';
import { decodeGenerateContentParts } from './decode-generate-content-parts';
import { generateContentResponseSchema } from './generate-content-response-schema';
import { mapGenerateContentFinishReason } from './map-generate-content-finish-reason';

/** A whole `generateContent` answer → IR. Only the first candidate is read (the encoder never asks for more). */
export function decodeGenerateContentResponse(body: unknown, context: UpstreamDecodeContext): IrResponse {
  if (body !== null && typeof body === 'object' && 'error' in body) {
    throw new GatewayError('upstream_error', 'the upstream answered with an error body', {
      upstream: { status: 200, body: JSON.stringify(body) },
    });
  }
  const parsed = generateContentResponseSchema.safeParse(body);
  if (!parsed.success) {
    throw new GatewayError('upstream_error', 'the upstream answer is not a GenerateContentResponse', { upstream: { status: 200 } });
  }
  const response = parsed.data;
  const candidate = response.candidates?.[0];
  const parts = decodeGenerateContentParts(candidate?.content?.parts ?? [], {
    signatures: 'upstream',
    callId: (call) => call.id ?? context.newId('call_'),
    toolName: (name) => restoreToolName(name, context.toolNames),
  });
  const sawToolCall = parts.some((part) => part.type === 'tool_call');
  // A prompt blocked before generation has no candidate, only `promptFeedback.blockReason`.
  const blockReason = candidate === undefined ? response.promptFeedback?.blockReason : undefined;
  const finish = blockReason
    ? { unified: 'content_filter' as const, raw: blockReason }
    : mapGenerateContentFinishReason(candidate?.finishReason, sawToolCall);

  const out: IrResponse = {
    // Generate-Content response ids carry no prefix.
    id: response.responseId ?? context.newId(''),
    model: response.modelVersion ?? '',
    parts,
    finish,
    usage: convertGenerateContentUsage(response.usageMetadata),
  };
  const created = parseCreateTime(response.createTime);
  if (created !== undefined) out.created = created;
  return out;
}

export function parseCreateTime(createTime: string | null | undefined): number | undefined {
  if (!createTime) return undefined;
  const millis = Date.parse(createTime);
  return Number.isNaN(millis) ? undefined : Math.floor(millis / 1000);
}
