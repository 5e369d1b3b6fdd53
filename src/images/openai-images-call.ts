/**
 * Family-2 image models on the OpenAI images API: `POST /v1/images/generations` (JSON) and
 * `POST /v1/images/edits` (multipart), answered with `data[].b64_json` (or a URL on older models).
 */
import { z } from 'zod';
import { GatewayError } from '../errors/gateway-error';
import type { TranslationWarning } from '../ir/warning';
import type { UpstreamAccount } from '../upstream/upstream-account';
import type { UpstreamClient } from '../upstream/upstream-client';
import { encodeMultipart, type MultipartField } from './encode-multipart';
import type { GeneratedImage, ImageGeneration } from './image-generation';
import { readUpstreamJson } from './read-upstream-json';
import { mediaTypeForFormat, sniffImageType } from './sniff-image-type';

const openAiImagesResponseSchema = z.looseObject({
  data: z
    .array(
      z.looseObject({
        b64_json: z.string().nullish(),
        url: z.string().nullish(),
        revised_prompt: z.string().nullish(),
      }),
    )
    .nullish(),
  output_format: z.string().nullish(),
});

/** Newer OpenAI image models name qualities low/medium/high/auto; the older `standard`/`hd` map onto them. */
function upstreamQuality(upstreamModel: string, quality: string | undefined): string | undefined {
  if (quality === undefined || upstreamModel.startsWith('dall-e')) return quality;
  if (quality === 'standard') return 'medium';
  if (quality === 'hd') return 'high';
  return quality;
}

export interface OpenAiImagesOptions {
  client: UpstreamClient;
  account: UpstreamAccount;
  generation: ImageGeneration;
  signal?: AbortSignal;
  /** Downloads an image the upstream answered by URL (older models). */
  download(url: string, signal?: AbortSignal): Promise<Buffer>;
  warnings: TranslationWarning[];
}

export async function callOpenAiImages(options: OpenAiImagesOptions): Promise<GeneratedImage[]> {
  const { generation, account } = options;
  const upstreamModel = generation.model.upstreamModel ?? generation.model.id;
  const fields: Record<string, string | number | undefined> = {
    model: upstreamModel,
    prompt: generation.prompt,
    n: generation.n,
    size: generation.size,
    quality: upstreamQuality(upstreamModel, generation.quality),
    output_format: generation.outputFormat,
    output_compression: generation.outputCompression,
    background: generation.background,
    moderation: generation.moderation,
    user: generation.user,
  };
  if (generation.style !== undefined) {
    // Only the dall-e-3 generation of this API takes a style; newer models reject the field.
    if (upstreamModel.startsWith('dall-e-3')) fields.style = generation.style;
    else options.warnings.push({ field: 'style', message: `model ${generation.model.id} has no style setting; style was dropped` });
  }
  const present = Object.entries(fields).filter((entry): entry is [string, string | number] => entry[1] !== undefined);
  const headers: Record<string, string> = { authorization: `Bearer ${account.credential}`, accept: 'application/json' };
  let url: string;
  let body: string | Buffer;
  if (generation.images && generation.images.length > 0) {
    url = `${account.baseUrl}/v1/images/edits`;
    const parts: MultipartField[] = present.map(([name, value]) => ({ name, value: String(value) }));
    const many = generation.images.length > 1;
    for (const image of generation.images) {
      parts.push({ name: many ? 'image[]' : 'image', filename: image.filename, contentType: image.mediaType, bytes: image.bytes });
    }
    if (generation.mask)
      parts.push({
        name: 'mask',
        filename: generation.mask.filename,
        contentType: generation.mask.mediaType,
        bytes: generation.mask.bytes,
      });
    const encoded = encodeMultipart(parts);
    headers['content-type'] = encoded.contentType;
    body = encoded.body;
  } else {
    url = `${account.baseUrl}/v1/images/generations`;
    headers['content-type'] = 'application/json';
    body = JSON.stringify(Object.fromEntries(present));
  }
  const response = await options.client.call({ url, method: 'POST', headers, body, signal: options.signal });
  const parsed = openAiImagesResponseSchema.safeParse(await readUpstreamJson('chat', response));
  if (!parsed.success || !parsed.data.data || parsed.data.data.length === 0) {
    throw new GatewayError('upstream_error', 'upstream image answer had no images', { upstream: { status: response.status } });
  }
  const declared = mediaTypeForFormat(parsed.data.output_format ?? generation.outputFormat);
  const images: GeneratedImage[] = [];
  for (const item of parsed.data.data) {
    let bytes: Buffer;
    if (item.b64_json) bytes = Buffer.from(item.b64_json, 'base64');
    else if (item.url) bytes = await options.download(item.url, options.signal);
    else
      throw new GatewayError('upstream_error', 'upstream image item had neither b64_json nor url', {
        upstream: { status: response.status },
      });
    images.push({
      bytes,
      mediaType: sniffImageType(bytes) ?? declared,
      ...(item.revised_prompt ? { revisedPrompt: item.revised_prompt } : {}),
    });
  }
  return images;
}
