/** What one image call asks of an upstream, whichever provider shape it travels in. */
import type { CatalogModel } from '../catalog/model';

export interface ImageInput {
  bytes: Buffer;
  mediaType: string;
  filename: string;
}

export interface ImageGeneration {
  model: CatalogModel;
  prompt: string;
  /** `<w>x<h>`, already validated. */
  size: string;
  n: number;
  quality?: string;
  style?: string;
  outputFormat?: 'png' | 'jpeg' | 'webp';
  outputCompression?: number;
  background?: string;
  moderation?: string;
  user?: string;
  /** Edits: the source images and the optional mask. */
  images?: ImageInput[];
  mask?: ImageInput;
}

export interface GeneratedImage {
  bytes: Buffer;
  mediaType: string;
  revisedPrompt?: string;
}
