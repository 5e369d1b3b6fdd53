/**
 * What "the same request" means for `Idempotency-Key`: the route and the body's content. A JSON
 * body is hashed as parsed (whitespace and key order do not matter); a binary body by what the
 * route's own reader says it contains (`BinaryContent`; the image edit form reads fields and file
 * bytes, because every client draws a new random boundary for each attempt), else by its bytes.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../http/canonical-json';

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The content of a binary body as a string that is equal for equal requests. */
export type BinaryContent = (body: Buffer, contentType: string) => Promise<string>;

const bytesContent: BinaryContent = async (body) => sha256(body);

export async function requestFingerprint(
  route: string,
  body: unknown,
  contentType: string,
  binaryContent: BinaryContent = bytesContent,
): Promise<string> {
  const content = Buffer.isBuffer(body) ? await binaryContent(body, contentType) : canonicalJson(body ?? null);
  return sha256(`${route}\n${content}`);
}
