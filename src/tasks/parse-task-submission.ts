/**
 * `POST /v1/tasks/submit` bodies: a video model (prompt, duration up to the model's maximum,
 * resolution and aspect ratio from its lists, optional initial image) or an image model with a
 * list of prompts (batch rendering). The model decides which shape applies.
 */
import { z } from 'zod';
import { parseBody } from '../auth/parse-body';
import { computeImageCost, computeVideoCost } from '../billing/compute-cost';
import type { Catalog } from '../catalog/catalog';
import type { CatalogModel } from '../catalog/model';
import { GatewayError } from '../errors/gateway-error';
import { billedQuality } from '../images/image-call-plan';
import { MAX_IMAGES_PER_CALL } from '../images/image-request-schema';
import { DEFAULT_IMAGE_SIZE, parseImageSize } from '../images/image-size';
import { resolveMediaModel, type RoutingGroup } from '../images/resolve-media-model';
import { sniffImageType } from '../images/sniff-image-type';
import { parseDataUrl } from '../protocols/shared/data-url';
import type { TaskRequest } from './task-request';

export const MAX_PROMPT_CHARACTERS = 8_000;
export const MAX_BATCH_PROMPTS = 16;

const prompt = z.string().trim().min(1, 'must not be empty').max(MAX_PROMPT_CHARACTERS);

const imageSourceSchema = z.union(
  [
    z.string().min(1),
    z.looseObject({
      data: z.string().min(1).optional(),
      b64_json: z.string().min(1).optional(),
      mime_type: z.string().optional(),
    }),
  ],
  // Neither branch names the other: one message for both shapes.
  { error: 'must be a data URL (data:image/png;base64,...) or {data, mime_type}' },
);

const videoSchema = z.looseObject({
  model: z.string(),
  prompt,
  duration_seconds: z.number().int().min(1).optional(),
  resolution: z.string().optional(),
  aspect_ratio: z.string().optional(),
  negative_prompt: z.string().max(MAX_PROMPT_CHARACTERS).optional(),
  seed: z.number().int().min(0).max(4_294_967_295).optional(),
  image: imageSourceSchema.optional(),
});

const imageBatchSchema = z.looseObject({
  model: z.string(),
  prompts: z
    .array(prompt)
    .min(1, 'must list at least one prompt')
    .max(MAX_BATCH_PROMPTS, `at most ${MAX_BATCH_PROMPTS} prompts per task`)
    .optional(),
  prompt: prompt.optional(),
  n: z.number().int().min(1).max(MAX_IMAGES_PER_CALL).default(1),
  size: z
    .string()
    .default(DEFAULT_IMAGE_SIZE)
    .superRefine((size, context) => {
      const parsed = parseImageSize(size);
      if (typeof parsed === 'string') context.addIssue({ code: 'custom', message: parsed });
    }),
  quality: z.string().optional(),
  style: z.enum(['vivid', 'natural']).optional(),
  output_format: z.enum(['png', 'jpeg', 'webp']).optional(),
  output_compression: z.number().int().min(0).max(100).optional(),
  background: z.enum(['transparent', 'opaque', 'auto']).optional(),
});

export interface TaskSubmission {
  model: CatalogModel;
  request: TaskRequest;
  estimatedCredits: number;
}

function oneOf(field: string, value: string | undefined, allowed: readonly string[], model: CatalogModel): string {
  if (value === undefined) return allowed[0];
  if (!allowed.includes(value))
    throw new GatewayError('invalid_request', `${field}: model ${model.id} accepts ${allowed.join(', ')}; got ${value}`, { param: field });
  return value;
}

function initialImage(source: z.infer<typeof imageSourceSchema>, maxBytes: number): { mediaType: string; data: string } {
  // The bytes decide the media type: a wrong declared type is a common client slip, not an error.
  let data: string;
  if (typeof source === 'string') {
    const parsed = parseDataUrl(source);
    if (!parsed)
      throw new GatewayError('invalid_request', 'image: must be a data URL (data:image/png;base64,...) or {data, mime_type}', {
        param: 'image',
      });
    data = parsed.data;
  } else {
    const base64 = source.data ?? source.b64_json;
    if (base64 === undefined) throw new GatewayError('invalid_request', 'image: give the base64 bytes in data', { param: 'image' });
    data = base64;
  }
  const bytes = Buffer.from(data, 'base64');
  if (bytes.length === 0) throw new GatewayError('invalid_request', 'image: the image is empty or not base64', { param: 'image' });
  if (bytes.length > maxBytes) throw new GatewayError('invalid_request', `image: larger than ${maxBytes} bytes`, { param: 'image' });
  const sniffed = sniffImageType(bytes);
  if (sniffed === undefined || sniffed === 'image/gif')
    throw new GatewayError('invalid_request', 'image: must be a PNG, JPEG or WEBP image', { param: 'image' });
  return { mediaType: sniffed, data: bytes.toString('base64') };
}

export function parseTaskSubmission(
  catalog: Catalog,
  body: unknown,
  group: RoutingGroup,
  options: { maxImageBytes: number },
): TaskSubmission {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new GatewayError('invalid_request', 'the request body must be a JSON object');
  const slug = (body as { model?: unknown }).model;
  if (typeof slug !== 'string' || slug === '') throw new GatewayError('invalid_request', 'model: required', { param: 'model' });
  const model = resolveMediaModel(catalog, slug, ['video', 'image'], '/v1/tasks/submit');

  if (model.kind === 'video') {
    const limits = model.video;
    if (!limits) throw new GatewayError('internal', `catalog entry ${model.id} has no video limits`);
    const input = parseBody(videoSchema, body);
    const durationSeconds = input.duration_seconds ?? limits.maxDurationSeconds;
    if (durationSeconds > limits.maxDurationSeconds) {
      throw new GatewayError(
        'invalid_request',
        `duration_seconds: model ${model.id} makes at most ${limits.maxDurationSeconds} seconds; got ${durationSeconds}`,
        { param: 'duration_seconds' },
      );
    }
    const resolution = oneOf('resolution', input.resolution, limits.resolutions, model);
    const aspectRatio = oneOf('aspect_ratio', input.aspect_ratio, limits.aspectRatios, model);
    if (input.image !== undefined && !limits.imageInput) {
      throw new GatewayError('unsupported_feature', `model ${model.id} does not start from an image`, { param: 'image' });
    }
    const request: TaskRequest = {
      kind: 'video',
      prompt: input.prompt,
      durationSeconds,
      resolution,
      aspectRatio,
      group,
      ...(input.negative_prompt !== undefined ? { negativePrompt: input.negative_prompt } : {}),
      ...(input.seed !== undefined ? { seed: input.seed } : {}),
      ...(input.image !== undefined ? { image: initialImage(input.image, options.maxImageBytes) } : {}),
    };
    return { model, request, estimatedCredits: computeVideoCost(model.prices, resolution, durationSeconds) };
  }

  const input = parseBody(imageBatchSchema, body);
  if (input.prompts !== undefined && input.prompt !== undefined) {
    throw new GatewayError('invalid_request', 'prompts: give either prompts (a list) or prompt, not both', { param: 'prompts' });
  }
  const prompts = input.prompts ?? (input.prompt !== undefined ? [input.prompt] : undefined);
  if (!prompts) throw new GatewayError('invalid_request', 'prompts: an image task needs a list of prompts', { param: 'prompts' });
  const qualities = model.image?.qualities ?? [];
  if (input.quality !== undefined && !qualities.includes(input.quality)) {
    throw new GatewayError('invalid_request', `quality: model ${model.id} accepts ${qualities.join(', ')}; got ${input.quality}`, {
      param: 'quality',
    });
  }
  const request: TaskRequest = {
    kind: 'image_batch',
    prompts,
    n: input.n,
    size: input.size,
    group,
    ...(input.quality !== undefined ? { quality: input.quality } : {}),
    ...(input.style !== undefined ? { style: input.style } : {}),
    ...(input.output_format !== undefined ? { outputFormat: input.output_format } : {}),
    ...(input.output_compression !== undefined ? { outputCompression: input.output_compression } : {}),
    ...(input.background !== undefined ? { background: input.background } : {}),
  };
  return {
    model,
    request,
    estimatedCredits: computeImageCost(model.prices, input.size, billedQuality(input.quality), prompts.length * input.n),
  };
}
