/** A complete upstream Responses body → the IR answer. */
import { GatewayError } from '../../errors/gateway-error';
import type { IrResponse } from '../../ir/response';
import type { UpstreamDecodeContext } from '../codec';
import { convertResponsesUsage } from './convert-usage';
import { decodeOutputItem } from './decode-output-item';
import { decodeResponsesInBandError } from './decode-error';
import { mapResponsesFinishReason } from './map-finish-reason';
import { responseBodySchema } from './response-schema';

export function decodeResponsesResponse(body: unknown, context: UpstreamDecodeContext): IrResponse {
  const parsed = responseBodySchema.safeParse(body);
  if (!parsed.success) {
    throw new GatewayError('upstream_error', 'the upstream answered with a body that is not a response object', {
      upstream: { status: 200, body: JSON.stringify(body ?? null).slice(0, 2000) },
    });
  }
  const response = parsed.data;
  // A 200 that carries a failure (or only an error envelope) is not an answer: never a clean finish.
  if (response.status === 'failed' || (response.error && response.output == null)) {
    throw decodeResponsesInBandError({ error: response.error }, 'the upstream response failed', JSON.stringify(body));
  }
  const parts = (response.output ?? []).flatMap((item) => decodeOutputItem(item, context.toolNames));
  const sawToolCall = parts.some((part) => part.type === 'tool_call');
  return {
    id: response.id ?? context.newId('resp_'),
    model: response.model ?? '',
    parts,
    finish: mapResponsesFinishReason(response.status, response.incomplete_details?.reason, sawToolCall),
    usage: convertResponsesUsage(response.usage),
    ...(typeof response.created_at === 'number' ? { created: response.created_at } : {}),
  };
}
