/**
 * Family-3 image models through Generate-Content: `generateContent` with IMAGE output; the image
 * comes back as an `inlineData` part and the model's words about it as text (our revised prompt).
 * One call yields one image, so `n` images are `n` calls made together.
 */
import { GatewayError } from '../errors/gateway-error';
import type { TranslationWarning } from '../ir/warning';
import { generateContentResponseSchema } from '../protocols/generate-content/generate-content-response-schema';
import type { UpstreamAccount } from '../upstream/upstream-account';
import type { UpstreamClient } from '../upstream/upstream-client';
import type { GeneratedImage, ImageGeneration } from './image-generation';
import { closestAspectRatio, parseImageSize } from './image-size';
import { readUpstreamJson } from './read-upstream-json';
import { sniffImageType } from './sniff-image-type';

/** Finish reasons and block reasons that mean the prompt or image was refused, not a provider failure. */
const REFUSALS = new Set([
  'SAFETY',
  'PROHIBITED_CONTENT',
  'IMAGE_SAFETY',
  'BLOCKLIST',
  'SPII',
  'RECITATION',
  'IMAGE_PROHIBITED_CONTENT',
  'OTHER',
]);

export interface GenerateContentImageOptions {
  client: UpstreamClient;
  account: UpstreamAccount;
  generation: ImageGeneration;
  signal?: AbortSignal;
  warnings: TranslationWarning[];
}

/** Fields of the images body this upstream has no place for; reported, never dropped silently. */
function collectWarnings(generation: ImageGeneration, warnings: TranslationWarning[]): void {
  const unsupported: Array<[string, unknown]> = [
    ['style', generation.style],
    ['output_compression', generation.outputCompression],
    ['background', generation.background],
    ['moderation', generation.moderation],
  ];
  for (const [field, value] of unsupported) {
    if (value !== undefined) warnings.push({ field, message: `model ${generation.model.id} has no ${field} setting; it was dropped` });
  }
  if (generation.outputFormat !== undefined && generation.outputFormat !== 'png') {
    warnings.push({
      field: 'output_format',
      message: `model ${generation.model.id} answers in its own format (PNG); output_format was dropped`,
    });
  }
}

export async function callGenerateContentImage(options: GenerateContentImageOptions): Promise<GeneratedImage[]> {
  const { generation, account } = options;
  if (generation.mask) {
    throw new GatewayError(
      'unsupported_feature',
      `model ${generation.model.id} does not take a mask; describe the change in the prompt instead`,
      { param: 'mask' },
    );
  }
  collectWarnings(generation, options.warnings);
  const size = parseImageSize(generation.size);
  const imageConfig: Record<string, string> = {};
  if (typeof size !== 'string') {
    const aspect = closestAspectRatio(size);
    imageConfig.aspectRatio = aspect.ratio;
    if (!aspect.exact)
      options.warnings.push({ field: 'size', message: `size ${generation.size} was approximated by the aspect ratio ${aspect.ratio}` });
  }
  const parts: Array<Record<string, unknown>> = [{ text: generation.prompt }];
  for (const image of generation.images ?? [])
    parts.push({ inlineData: { mimeType: image.mediaType, data: image.bytes.toString('base64') } });
  const body = JSON.stringify({
    contents: [{ role: 'user', parts }],
    generationConfig: { responseModalities: ['TEXT', 'IMAGE'], imageConfig },
  });
  const upstreamModel = generation.model.upstreamModel ?? generation.model.id;
  const url = `${account.baseUrl}/v1beta/models/${encodeURIComponent(upstreamModel)}:generateContent`;
  const headers = { 'x-goog-api-key': account.credential, 'content-type': 'application/json', accept: 'application/json' };
  const one = async (): Promise<GeneratedImage> => {
    const response = await options.client.call({ url, method: 'POST', headers, body, signal: options.signal });
    const parsed = generateContentResponseSchema.safeParse(await readUpstreamJson('generate-content', response));
    if (!parsed.success)
      throw new GatewayError('upstream_error', 'upstream image answer was not a Generate-Content response', {
        upstream: { status: response.status },
      });
    const blockReason = parsed.data.promptFeedback?.blockReason;
    if (blockReason) throw new GatewayError('invalid_request', `the model refused the prompt (${blockReason})`, { param: 'prompt' });
    const candidate = parsed.data.candidates?.[0];
    const answerParts = candidate?.content?.parts ?? [];
    const image = answerParts.find((part) => part.inlineData?.data && !part.thought);
    if (!image?.inlineData?.data) {
      const reason = candidate?.finishReason ?? 'no image';
      if (REFUSALS.has(reason))
        throw new GatewayError('invalid_request', `the model refused to draw this (${reason})`, { param: 'prompt' });
      throw new GatewayError('upstream_error', `upstream answered without an image (${reason})`, { upstream: { status: response.status } });
    }
    const bytes = Buffer.from(image.inlineData.data, 'base64');
    const text = answerParts
      .filter((part) => typeof part.text === 'string' && !part.thought)
      .map((part) => part.text)
      .join('')
      .trim();
    return {
      bytes,
      mediaType: sniffImageType(bytes) ?? image.inlineData.mimeType ?? 'image/png',
      ...(text ? { revisedPrompt: text } : {}),
    };
  };
  return Promise.all(Array.from({ length: generation.n }, () => one()));
}
