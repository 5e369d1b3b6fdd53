/**
 * The image request body of interface 4.5 (generations as JSON; edits as multipart fields, which
 * arrive as strings, hence the numeric coercion). Model-specific rules (qualities) are checked
 * after the model is known.
 */
import { z } from 'zod';
import { DEFAULT_IMAGE_SIZE, parseImageSize } from './image-size';

/** Multipart fields are strings: `"2"` must validate like `2`, while JSON keeps its types. */
const fromFormString = (schema: z.ZodType<number>) =>
  z.preprocess((value) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value), schema);

export const MAX_IMAGES_PER_CALL = 4;

export const imageRequestSchema = z.looseObject({
  model: z.string().min(1, 'model is required'),
  prompt: z.string().min(1, 'prompt must not be empty').max(32_000),
  size: z
    .string()
    .default(DEFAULT_IMAGE_SIZE)
    .superRefine((size, context) => {
      const parsed = parseImageSize(size);
      if (typeof parsed === 'string') context.addIssue({ code: 'custom', message: parsed });
    }),
  n: fromFormString(
    z.number().int().min(1, 'n must be at least 1').max(MAX_IMAGES_PER_CALL, `n must be at most ${MAX_IMAGES_PER_CALL}`),
  ).default(1),
  quality: z.string().min(1).optional(),
  style: z.enum(['vivid', 'natural']).optional(),
  output_format: z.enum(['png', 'jpeg', 'webp']).optional(),
  output_compression: fromFormString(z.number().int().min(0).max(100)).optional(),
  background: z.enum(['transparent', 'opaque', 'auto']).optional(),
  moderation: z.enum(['auto', 'low']).optional(),
  // The service always stores the bytes and answers with URLs; a client that asks for base64
  // would break on what it gets, so it is told at once.
  response_format: z.literal('url', { message: 'only "url" is supported; images are returned as presigned URLs' }).optional(),
  user: z.string().max(256).optional(),
  stream: z.literal(false, { message: 'streamed image generation is not supported' }).optional(),
});

export type ImageRequest = z.infer<typeof imageRequestSchema>;
