/**
 * What "the same request" means for `Idempotency-Key`: the route and the body's content. A JSON
 * body is hashed as parsed (whitespace and key order do not matter); a multipart body by its fields and file
 * bytes, because every client draws a new random boundary for each attempt.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../http/canonical-json';
import { parseImageEditForm } from '../images/parse-image-edit-form';

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

async function multipartContent(body: Buffer, contentType: string): Promise<string> {
  try {
    const form = await parseImageEditForm(body, contentType);
    const fields = Object.entries(form.fields).sort(([a], [b]) => a.localeCompare(b));
    return JSON.stringify({ fields, images: form.images.map((image) => sha256(image.bytes)), mask: form.mask ? sha256(form.mask.bytes) : null });
  } catch {
    // A form the endpoint will refuse anyway: its bytes are as good a fingerprint as any.
    return sha256(body);
  }
}

export async function requestFingerprint(route: string, body: unknown, contentType: string): Promise<string> {
  const content = Buffer.isBuffer(body)
    ? contentType.toLowerCase().startsWith('multipart/form-data') ? await multipartContent(body, contentType) : sha256(body)
    : canonicalJson(body ?? null);
  return sha256(`${route}\n${content}`);
}
