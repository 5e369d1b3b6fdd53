/**
 * A validated image request bound to its model: the catalog checks (kind, quality, editability)
 * and the price of what it asks for, before anything is admitted or sent upstream.
 */
import { computeImageCost } from '../billing/compute-cost';
import type { Catalog } from '../catalog/catalog';
import { parseBody } from '../auth/parse-body';
import { GatewayError } from '../errors/gateway-error';
import type { ImageGeneration, ImageInput } from './image-generation';
import { imageRequestSchema } from './image-request-schema';
import { resolveMediaModel } from './resolve-media-model';

export interface ImageCallPlan {
  generation: ImageGeneration;
  /** The price of `n` images: the reservation, and the charge when every image comes back. */
  estimatedCredits: number;
}

/** Prices by quality tier: `auto` and unset bill as standard, like the catalog's cost function. */
export function billedQuality(quality: string | undefined): string {
  return quality ?? 'standard';
}

export function planImageCall(
  catalog: Catalog,
  body: unknown,
  endpoint: string,
  inputs?: { images: ImageInput[]; mask?: ImageInput },
): ImageCallPlan {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new GatewayError('invalid_request', 'the request body must be a JSON object');
  }
  const request = parseBody(imageRequestSchema, body);
  const model = resolveMediaModel(catalog, request.model, ['image'], endpoint);
  const qualities = model.image?.qualities ?? [];
  if (request.quality !== undefined && !qualities.includes(request.quality)) {
    throw new GatewayError('invalid_request', `quality: model ${model.id} accepts ${qualities.join(', ')}; got ${request.quality}`, {
      param: 'quality',
    });
  }
  if (inputs && model.image?.editable === false) {
    throw new GatewayError('unsupported_feature', `model ${model.id} cannot edit images`, { param: 'model' });
  }
  const generation: ImageGeneration = {
    model,
    prompt: request.prompt,
    size: request.size,
    n: request.n,
    ...(request.quality !== undefined ? { quality: request.quality } : {}),
    ...(request.style !== undefined ? { style: request.style } : {}),
    ...(request.output_format !== undefined ? { outputFormat: request.output_format } : {}),
    ...(request.output_compression !== undefined ? { outputCompression: request.output_compression } : {}),
    ...(request.background !== undefined ? { background: request.background } : {}),
    ...(request.moderation !== undefined ? { moderation: request.moderation } : {}),
    ...(request.user !== undefined ? { user: request.user } : {}),
    ...(inputs ? { images: inputs.images, ...(inputs.mask ? { mask: inputs.mask } : {}) } : {}),
  };
  return { generation, estimatedCredits: computeImageCost(model.prices, request.size, billedQuality(request.quality), request.n) };
}
