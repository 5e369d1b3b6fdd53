import type { IrResponse } from '../../ir/response';
import type { InboundStreamOptions } from '../codec';
import { appendGenerateContentPart } from './append-generate-content-part';
import { encodeGenerateContentClientPart, type GenerateContentClientPart } from './encode-generate-content-client-part';
import { encodeGenerateContentFinishReason } from './encode-generate-content-finish-reason';
import { encodeGenerateContentUsage } from './encode-generate-content-usage';

/** A complete answer in the `GenerateContentResponse` shape. */
export function encodeGenerateContentResponse(response: IrResponse, options: InboundStreamOptions): Record<string, unknown> {
  const parts: GenerateContentClientPart[] = [];
  for (const part of response.parts) {
    const encoded = encodeGenerateContentClientPart(part);
    if (encoded !== undefined) appendGenerateContentPart(parts, encoded);
  }
  return {
    candidates: [
      {
        content: { role: 'model', parts },
        finishReason: encodeGenerateContentFinishReason(response.finish),
        index: 0,
      },
    ],
    usageMetadata: encodeGenerateContentUsage(response.usage),
    modelVersion: options.model,
    responseId: response.id,
  };
}
