/**
 * The multipart body of `POST /v1/images/edits`: `image` (one file, or several as `image[]` or a
 * repeated `image`), an optional `mask`, and the text fields. Parsed by the platform's own
 * multipart reader (`Response.formData()`), so no dependency is added.
 */
import { GatewayError } from '../errors/gateway-error';
import type { ImageInput } from './image-generation';
import { sniffImageType } from './sniff-image-type';

export const MAX_EDIT_IMAGES = 16;

export interface ImageEditForm {
  fields: Record<string, string>;
  images: ImageInput[];
  mask?: ImageInput;
}

async function toImageInput(value: File, field: string): Promise<ImageInput> {
  const bytes = Buffer.from(await value.arrayBuffer());
  if (bytes.length === 0) throw new GatewayError('invalid_request', `${field}: the file is empty`, { param: field });
  const sniffed = sniffImageType(bytes);
  if (sniffed === undefined || sniffed === 'image/gif') {
    throw new GatewayError('invalid_request', `${field}: must be a PNG, JPEG or WEBP image`, { param: field });
  }
  return { bytes, mediaType: sniffed, filename: value.name || `${field}.${sniffed.slice('image/'.length)}` };
}

export async function parseImageEditForm(body: Buffer, contentType: string): Promise<ImageEditForm> {
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch (error) {
    throw new GatewayError('invalid_request', 'the multipart/form-data body could not be parsed', { cause: error });
  }
  const fields: Record<string, string> = {};
  const images: ImageInput[] = [];
  let mask: ImageInput | undefined;
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') {
      if (name === 'image' || name === 'image[]' || name === 'mask') {
        throw new GatewayError('invalid_request', `${name}: must be a file upload`, { param: name });
      }
      fields[name] = value;
      continue;
    }
    if (name === 'image' || name === 'image[]') {
      if (images.length >= MAX_EDIT_IMAGES)
        throw new GatewayError('invalid_request', `image: at most ${MAX_EDIT_IMAGES} images`, { param: 'image' });
      images.push(await toImageInput(value, 'image'));
    } else if (name === 'mask') {
      if (mask) throw new GatewayError('invalid_request', 'mask: only one mask is accepted', { param: 'mask' });
      mask = await toImageInput(value, 'mask');
    } else {
      throw new GatewayError('invalid_request', `${name}: unexpected file field; send image (or image[]) and mask`, { param: name });
    }
  }
  if (images.length === 0) throw new GatewayError('invalid_request', 'image: at least one image file is required', { param: 'image' });
  return { fields, images, ...(mask ? { mask } : {}) };
}
