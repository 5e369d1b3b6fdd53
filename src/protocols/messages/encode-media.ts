/** IR images and documents → Messages `image` / `document` blocks, or a warning when one cannot cross. */
import type { DocumentPart, ImagePart, MediaSource } from '../../ir/parts';
import type { TranslationWarning } from '../../ir/warning';
import { parseDataUrl } from '../shared/data-url';
import type { MessagesBlock } from './wire-types';

const IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

type Resolved = { kind: 'base64'; mediaType: string; data: string } | { kind: 'url'; url: string } | { kind: 'unusable'; reason: string };

/** Data URLs become bytes; http(s) URLs stay URLs; provider file references cannot cross. */
function resolve(source: MediaSource): Resolved {
  switch (source.kind) {
    case 'base64':
      return { kind: 'base64', mediaType: source.mediaType, data: source.data };
    case 'url': {
      const inline = parseDataUrl(source.url);
      if (inline) return { kind: 'base64', mediaType: inline.mediaType, data: inline.data };
      if (/^https?:\/\//i.test(source.url)) return { kind: 'url', url: source.url };
      return { kind: 'unusable', reason: 'only http(s) and data URLs can be sent' };
    }
    case 'file':
      if (source.uri !== undefined && /^https?:\/\//i.test(source.uri)) return { kind: 'url', url: source.uri };
      return { kind: 'unusable', reason: 'a file reference of another provider cannot be sent to this model' };
  }
}

function cacheControl(part: { cacheHint?: ImagePart['cacheHint'] }): Record<string, unknown> {
  return part.cacheHint ? { cache_control: { ...part.cacheHint } } : {};
}

export function encodeMessagesImage(part: ImagePart, path: string, warnings: TranslationWarning[]): MessagesBlock | undefined {
  if (part.detail !== undefined && part.detail !== 'auto') {
    warnings.push({ field: `${path}.detail`, message: 'image detail has no equivalent here and was ignored' });
  }
  const source = resolve(part.source);
  switch (source.kind) {
    case 'unusable':
      warnings.push({ field: path, message: `image dropped: ${source.reason}` });
      return undefined;
    case 'url':
      return { type: 'image', source: { type: 'url', url: source.url }, ...cacheControl(part) };
    case 'base64':
      if (!IMAGE_TYPES.has(source.mediaType)) {
        warnings.push({ field: path, message: `image dropped: media type ${source.mediaType} is not accepted (jpeg, png, gif, webp)` });
        return undefined;
      }
      return { type: 'image', source: { type: 'base64', media_type: source.mediaType, data: source.data }, ...cacheControl(part) };
  }
}

export function encodeMessagesDocument(part: DocumentPart, path: string, warnings: TranslationWarning[]): MessagesBlock | undefined {
  const source = resolve(part.source);
  const extra = { ...(part.title !== undefined ? { title: part.title } : {}), ...cacheControl(part) };
  switch (source.kind) {
    case 'unusable':
      warnings.push({ field: path, message: `document dropped: ${source.reason}` });
      return undefined;
    case 'url':
      return { type: 'document', source: { type: 'url', url: source.url }, ...extra };
    case 'base64':
      if (source.mediaType === 'application/pdf') {
        return { type: 'document', source: { type: 'base64', media_type: source.mediaType, data: source.data }, ...extra };
      }
      if (source.mediaType.startsWith('text/')) {
        const text = Buffer.from(source.data, 'base64').toString('utf8');
        return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: text }, ...extra };
      }
      warnings.push({ field: path, message: `document dropped: media type ${source.mediaType} is not accepted (PDF or text)` });
      return undefined;
  }
}
