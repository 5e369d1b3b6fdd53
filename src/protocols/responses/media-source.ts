/** Responses `input_image` / `input_file` references ⇄ IR media sources. */
import type { MediaSource } from '../../ir/parts';
import { parseDataUrl, toDataUrl } from '../shared/data-url';

/** A data URL becomes inline bytes; anything else stays a URL for the upstream to fetch. */
export function imageUrlToSource(url: string): MediaSource {
  const inline = parseDataUrl(url);
  return inline === undefined ? { kind: 'url', url } : { kind: 'base64', mediaType: inline.mediaType, data: inline.data };
}

const FETCHABLE = /^https?:\/\//i;

/**
 * The `input_image` fields for a source: a data URL, a URL or a file id. A file known only by
 * URI (Generate-Content file data) is passed as a URL when it is an HTTP(S) one (a `gs://` or
 * provider file URI means nothing to Responses); undefined when nothing can be expressed.
 */
export function sourceToImageFields(source: MediaSource): { image_url: string } | { file_id: string } | undefined {
  switch (source.kind) {
    case 'base64':
      return { image_url: toDataUrl(source.mediaType, source.data) };
    case 'url':
      return { image_url: source.url };
    case 'file':
      if (source.fileId !== undefined) return { file_id: source.fileId };
      if (source.uri !== undefined && FETCHABLE.test(source.uri)) return { image_url: source.uri };
      return undefined;
  }
}

/** The `input_file` fields for a document source. */
export function sourceToFileFields(
  source: MediaSource,
  title: string | undefined,
): { file_data: string; filename: string } | { file_url: string } | { file_id: string } | undefined {
  switch (source.kind) {
    case 'base64':
      return { file_data: toDataUrl(source.mediaType, source.data), filename: title ?? 'document' };
    case 'url':
      return { file_url: source.url };
    case 'file':
      if (source.fileId !== undefined) return { file_id: source.fileId };
      if (source.uri !== undefined && FETCHABLE.test(source.uri)) return { file_url: source.uri };
      return undefined;
  }
}

/** `input_file` → source: `file_data` is a data URL (or bare base64, taken as PDF as the API does). */
export function fileFieldsToSource(fields: {
  file_data?: string | null;
  file_id?: string | null;
  file_url?: string | null;
}): MediaSource | undefined {
  if (fields.file_data) {
    const inline = parseDataUrl(fields.file_data);
    return inline === undefined
      ? { kind: 'base64', mediaType: 'application/pdf', data: fields.file_data }
      : { kind: 'base64', mediaType: inline.mediaType, data: inline.data };
  }
  if (fields.file_url) return { kind: 'url', url: fields.file_url };
  if (fields.file_id) return { kind: 'file', fileId: fields.file_id };
  return undefined;
}
