/** Messages image blocks: base64 with one of four media types whose bytes match it, or a URL. */
import { isRecord, stringField, type JsonRecord } from '../json';
import { anthropicInvalid } from '../sim-error';
import { sniffImageType } from '../images/sniff-image-type';
import { guessImageTypeFromUrl } from '../images/guess-image-type-from-url';
import type { SimImage } from '../answer/conversation';

const MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

export function checkMessagesImage(block: JsonRecord, at: string): SimImage {
  const source = block.source;
  if (!isRecord(source)) throw anthropicInvalid(`${at}.image.source: Field required`);
  switch (source.type) {
    case 'base64': {
      const mediaType = stringField(source, 'media_type') ?? '';
      if (!MEDIA_TYPES.includes(mediaType)) {
        throw anthropicInvalid(
          `${at}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`,
        );
      }
      const data = stringField(source, 'data') ?? '';
      const bytes = Buffer.from(data, 'base64');
      if (data === '' || bytes.length === 0) throw anthropicInvalid(`${at}.image.source.base64.data: Field required`);
      const actual = sniffImageType(bytes);
      if (actual === null) throw anthropicInvalid(`${at}.image.source.base64.data: The image data is not a valid image.`);
      if (actual !== mediaType)
        throw anthropicInvalid(`${at}.image.source.base64.data: Image does not match the provided media type ${mediaType}`);
      return { mediaType, source: 'base64' };
    }
    case 'url': {
      const url = stringField(source, 'url') ?? '';
      if (!/^https?:\/\//.test(url)) throw anthropicInvalid(`${at}.image.source.url.url: Input should be a valid URL`);
      return { mediaType: guessImageTypeFromUrl(url), source: 'url' };
    }
    case 'file':
      return { mediaType: 'image/*', source: 'file' };
    default:
      throw anthropicInvalid(
        `${at}.image.source: Input tag '${String(source.type)}' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'`,
      );
  }
}
