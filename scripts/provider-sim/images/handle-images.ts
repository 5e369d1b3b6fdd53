/** `POST /v1/images/generations` (JSON) and `POST /v1/images/edits` (multipart), plus served image URLs. */
import { createHash } from 'node:crypto';
import { isRecord, stringField } from '../json';
import { randomId } from '../ids';
import type { SimModel } from '../models';
import type { SimContext } from '../http/context';
import { sendBytes, sendJson } from '../http/send';
import { sleep } from '../http/sleep';
import { openaiError, openaiInvalid } from '../sim-error';
import { countTextTokens, IMAGE_INPUT_TOKENS } from '../tokens';
import { colourOf } from './png';
import { imageOutputTokens, readImageOptions, type ImageOptions } from './image-options';
import type { MultipartForm } from './parse-multipart';
import { sniffImageType } from './sniff-image-type';

const MAX_PROMPT = 32_000;
const EDIT_TYPES = ['image/png', 'image/jpeg', 'image/webp'];

function findImageModel(context: SimContext, name: string): SimModel {
  const model = context.state.models.find('images', name);
  if (model === undefined) {
    throw openaiInvalid(`Invalid value: '${name}'. Supported values are: 'gpt-image-1' and 'sim-*'.`, 'model', 'invalid_value');
  }
  return model;
}

function readPrompt(value: unknown): string {
  if (typeof value !== 'string' || value === '')
    throw openaiInvalid("Missing required parameter: 'prompt'.", 'prompt', 'missing_required_parameter');
  if (value.length > MAX_PROMPT) {
    throw openaiInvalid(
      `Invalid 'prompt': string too long. Expected a string with maximum length ${MAX_PROMPT}, but got a string with length ${value.length} instead.`,
      'prompt',
      'string_above_max_length',
    );
  }
  return value;
}

export async function handleImageGeneration(context: SimContext, body: unknown): Promise<void> {
  if (!isRecord(body)) throw openaiInvalid('Invalid body: expected a JSON object.');
  const model = findImageModel(context, stringField(body, 'model') ?? 'dall-e-2');
  const prompt = readPrompt(body.prompt);
  const options = readImageOptions(body, model);
  await answerImages(context, options, prompt, prompt, countTextTokens(prompt), 0);
}

export async function handleImageEdit(context: SimContext, form: MultipartForm | null): Promise<void> {
  if (form === null) throw openaiInvalid('Invalid Content-Type header (expected multipart/form-data).');
  const model = findImageModel(context, form.fields.model ?? 'dall-e-2');
  const images = form.files.filter((file) => file.field === 'image' || file.field === 'image[]');
  if (images.length === 0) throw openaiInvalid("Missing required parameter: 'image'.", 'image', 'missing_required_parameter');
  for (const file of [...images, ...form.files.filter((entry) => entry.field === 'mask')]) {
    const type = sniffImageType(file.data);
    if (type === null || !EDIT_TYPES.includes(type)) {
      throw openaiInvalid(
        `Invalid file '${file.field}': unsupported mimetype ('${file.contentType}'). Supported file formats are 'image/jpeg', 'image/png', and 'image/webp'.`,
        file.field,
        'unsupported_file',
      );
    }
  }
  const prompt = readPrompt(form.fields.prompt);
  const options = readImageOptions(form.fields, model);
  // The edit's colour depends on the prompt and on the images edited.
  const digest = createHash('sha256');
  for (const file of images) digest.update(file.data);
  const seed = `${prompt}\u0000${digest.digest('hex')}`;
  await answerImages(context, options, prompt, seed, countTextTokens(prompt), images.length);
}

async function answerImages(
  context: SimContext,
  options: ImageOptions,
  prompt: string,
  seed: string,
  textTokens: number,
  imageCount: number,
): Promise<void> {
  const { state } = context;
  if (!(await sleep(state.options.imageMs, state.closing))) return;
  const png = state.pngs.get(options.width, options.height, colourOf(seed));
  const data = [];
  for (let index = 0; index < options.count; index++) {
    if (options.responseFormat === 'url') {
      const id = randomId(24, 'lower36');
      state.images.set(id, png);
      data.push({ url: `${state.baseUrl}/v1/images/files/${id}.png`, revised_prompt: `Revised: ${prompt}` });
    } else {
      data.push({ b64_json: png.toString('base64'), revised_prompt: `Revised: ${prompt}` });
    }
  }
  const imageTokens = imageCount * IMAGE_INPUT_TOKENS;
  const outputTokens = imageOutputTokens(options) * options.count;
  sendJson(context, 200, {
    created: Math.floor(Date.now() / 1000),
    background: 'opaque',
    data,
    output_format: 'png',
    quality: options.quality,
    size: options.size,
    usage: {
      input_tokens: textTokens + imageTokens,
      input_tokens_details: { image_tokens: imageTokens, text_tokens: textTokens },
      output_tokens: outputTokens,
      total_tokens: textTokens + imageTokens + outputTokens,
    },
  });
}

/** `GET /v1/images/files/{id}.png`: unauthenticated, like the providers' expiring image URLs. */
export function handleImageFile(context: SimContext, id: string): void {
  const png = context.state.images.get(id);
  if (png === undefined) throw openaiError(404, 'Image not found (URLs are kept in memory only).', { code: 'not_found' });
  sendBytes(context, 200, 'image/png', png);
}
