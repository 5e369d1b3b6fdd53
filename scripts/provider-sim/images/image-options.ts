/** The Images API parameters both endpoints share, checked like the real API checks them. */
import type { SimModel } from '../models';
import { openaiInvalid } from '../sim-error';

export interface ImageOptions {
  count: number;
  width: number;
  height: number;
  size: string;
  quality: string;
  responseFormat: 'b64_json' | 'url';
}

const GPT_IMAGE_SIZES = ['1024x1024', '1024x1536', '1536x1024', 'auto'];
const GPT_IMAGE_QUALITIES = ['low', 'medium', 'high', 'auto', 'standard'];
const OUTPUT_FORMATS = ['png', 'jpeg', 'webp'];

/** Output tokens gpt-image-1 reports per image, by quality and size. */
const OUTPUT_TOKENS: Record<string, Record<string, number>> = {
  low: { '1024x1024': 272, '1024x1536': 408, '1536x1024': 400 },
  medium: { '1024x1024': 1056, '1024x1536': 1584, '1536x1024': 1568 },
  high: { '1024x1024': 4160, '1024x1536': 6240, '1536x1024': 6208 },
};

export function imageOutputTokens(options: ImageOptions): number {
  const quality = options.quality === 'standard' ? 'medium' : options.quality;
  return OUTPUT_TOKENS[quality]?.[options.size] ?? Math.ceil((options.width * options.height) / 256);
}

export function readImageOptions(values: Record<string, unknown>, model: SimModel): ImageOptions {
  const count = readCount(values.n);
  const size = values.size === undefined || values.size === null ? 'auto' : String(values.size);
  let width: number;
  let height: number;
  if (model.isSim) {
    const match = /^(\d{2,4})x(\d{2,4})$/.exec(size);
    if (size !== 'auto' && match === null)
      throw openaiInvalid(`Invalid value: '${size}'. Expected a size like '1024x1024' or 'auto'.`, 'size', 'invalid_value');
    [width, height] = match === null ? [1024, 1024] : [Number(match[1]), Number(match[2])];
    if (width > 4096 || height > 4096 || width < 16 || height < 16)
      throw openaiInvalid(`Invalid value: '${size}'. Sizes go from 16 to 4096 pixels a side.`, 'size', 'invalid_value');
  } else {
    if (!GPT_IMAGE_SIZES.includes(size)) {
      throw openaiInvalid(
        `Invalid value: '${size}'. Supported values are: '1024x1024', '1024x1536', '1536x1024', and 'auto'.`,
        'size',
        'invalid_value',
      );
    }
    [width, height] = size === 'auto' ? [1024, 1024] : (size.split('x').map(Number) as [number, number]);
  }
  const quality = values.quality === undefined || values.quality === null ? 'auto' : String(values.quality);
  if (!GPT_IMAGE_QUALITIES.includes(quality)) {
    throw openaiInvalid(
      `Invalid value: '${quality}'. Supported values are: 'low', 'medium', 'high', and 'auto'.`,
      'quality',
      'invalid_value',
    );
  }
  const outputFormat = values.output_format;
  if (outputFormat !== undefined && outputFormat !== null && !OUTPUT_FORMATS.includes(String(outputFormat))) {
    throw openaiInvalid(
      `Invalid value: '${String(outputFormat)}'. Supported values are: 'png', 'jpeg', and 'webp'.`,
      'output_format',
      'invalid_value',
    );
  }
  return {
    count,
    width,
    height,
    size: `${width}x${height}`,
    quality: quality === 'auto' ? 'high' : quality,
    responseFormat: readResponseFormat(values.response_format, model),
  };
}

function readCount(value: unknown): number {
  if (value === undefined || value === null) return 1;
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw openaiInvalid("Invalid type for 'n': expected an integer.", 'n', 'invalid_type');
  if (n < 1)
    throw openaiInvalid(
      `Invalid 'n': integer below minimum value. Expected a value >= 1, but got ${n} instead.`,
      'n',
      'integer_below_min_value',
    );
  if (n > 10)
    throw openaiInvalid(
      `Invalid 'n': integer above maximum value. Expected a value <= 10, but got ${n} instead.`,
      'n',
      'integer_above_max_value',
    );
  return n;
}

/** Newer image models always answer base64 and reject `response_format`; `sim-` models honour it. */
function readResponseFormat(value: unknown, model: SimModel): 'b64_json' | 'url' {
  if (value === undefined || value === null) return 'b64_json';
  if (!model.isSim) throw openaiInvalid("Unknown parameter: 'response_format'.", 'response_format', 'unknown_parameter');
  if (value !== 'url' && value !== 'b64_json') {
    throw openaiInvalid(
      `Invalid value: '${String(value)}'. Supported values are: 'url' and 'b64_json'.`,
      'response_format',
      'invalid_value',
    );
  }
  return value;
}
