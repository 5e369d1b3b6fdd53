/**
 * A multipart/form-data body as one Buffer, for the upstream image-edit call (undici's request takes
 * a string or Buffer; the inputs are already in memory, so nothing is gained by streaming them).
 */
import { randomBytes } from 'node:crypto';

export type MultipartField = { name: string; value: string } | { name: string; filename: string; contentType: string; bytes: Buffer };

function quote(value: string): string {
  // RFC 7578: names are quoted strings; CR, LF and quotes are percent-encoded like browsers do.
  return value.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
}

export function encodeMultipart(
  fields: readonly MultipartField[],
  boundary = `----gateway${randomBytes(12).toString('hex')}`,
): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const field of fields) {
    if ('bytes' in field) {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${quote(field.name)}"; filename="${quote(field.filename)}"\r\nContent-Type: ${field.contentType}\r\n\r\n`,
          'utf8',
        ),
      );
      chunks.push(field.bytes);
      chunks.push(Buffer.from('\r\n', 'utf8'));
    } else {
      chunks.push(
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quote(field.name)}"\r\n\r\n${field.value}\r\n`, 'utf8'),
      );
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`, 'utf8'));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
