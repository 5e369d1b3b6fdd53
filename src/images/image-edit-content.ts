/** An image edit form as `Idempotency-Key` compares it: its fields and file bytes, never its random boundary. */
import { sha256, type BinaryContent } from '../idempotency/request-fingerprint';
import { parseImageEditForm } from './parse-image-edit-form';

export const imageEditContent: BinaryContent = async (body, contentType) => {
  if (!contentType.toLowerCase().startsWith('multipart/form-data')) return sha256(body);
  try {
    const form = await parseImageEditForm(body, contentType);
    const fields = Object.entries(form.fields).sort(([a], [b]) => a.localeCompare(b));
    return JSON.stringify({
      fields,
      images: form.images.map((image) => sha256(image.bytes)),
      mask: form.mask ? sha256(form.mask.bytes) : null,
    });
  } catch {
    // A form the endpoint will refuse anyway: its bytes are as good a fingerprint as any.
    return sha256(body);
  }
};
