/** Generated image bytes → S3 objects under deterministic keys, each with a presigned GET URL (24 h). */
import type { ObjectStorage } from '../storage/object-storage';
import type { GeneratedImage } from './image-generation';
import { extensionForMediaType } from './sniff-image-type';

export interface StoredImage {
  key: string;
  url: string;
  mediaType: string;
  bytes: number;
  revisedPrompt?: string;
}

/** `keyOf(index, extension)` names each object; callers make it deterministic so a retry overwrites instead of adding. */
export async function storeImages(
  storage: ObjectStorage,
  images: readonly GeneratedImage[],
  keyOf: (index: number, extension: string) => string,
): Promise<StoredImage[]> {
  return Promise.all(
    images.map(async (image, index) => {
      const key = keyOf(index, extensionForMediaType(image.mediaType));
      await storage.put(key, image.bytes, image.mediaType);
      return {
        key,
        url: await storage.presign(key),
        mediaType: image.mediaType,
        bytes: image.bytes.length,
        ...(image.revisedPrompt !== undefined ? { revisedPrompt: image.revisedPrompt } : {}),
      };
    }),
  );
}
