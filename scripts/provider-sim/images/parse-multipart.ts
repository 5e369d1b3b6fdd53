/** A small `multipart/form-data` reader for the image edit endpoint (fields and files). */
export interface MultipartFile {
  field: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface MultipartForm {
  fields: Record<string, string>;
  files: MultipartFile[];
}

export function boundaryOf(contentType: string | undefined): string | null {
  const match = contentType === undefined ? null : /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  return match === null ? null : (match[1] ?? match[2] ?? '').trim();
}

export function parseMultipart(body: Buffer, boundary: string): MultipartForm {
  const form: MultipartForm = { fields: {}, files: [] };
  const delimiter = Buffer.from(`--${boundary}`);
  let position = body.indexOf(delimiter);
  while (position >= 0) {
    const start = position + delimiter.length;
    if (body.subarray(start, start + 2).toString('latin1') === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) break;
    // Each part: CRLF, headers, CRLF CRLF, content, CRLF before the next delimiter.
    const part = body.subarray(start + 2, next - 2);
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd >= 0) addPart(form, part.subarray(0, headerEnd).toString('utf8'), part.subarray(headerEnd + 4));
    position = next;
  }
  return form;
}

function addPart(form: MultipartForm, headerText: string, content: Buffer): void {
  const headers = new Map<string, string>();
  for (const line of headerText.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get('content-disposition') ?? '';
  const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
  if (name === undefined) return;
  const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
  if (filename === undefined) {
    form.fields[name] = content.toString('utf8');
    return;
  }
  form.files.push({
    field: name,
    filename,
    contentType: headers.get('content-type') ?? 'application/octet-stream',
    data: Buffer.from(content),
  });
}
