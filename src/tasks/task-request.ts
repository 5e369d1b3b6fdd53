/** The work a task describes, as stored in `tasks.request` (jsonb) and read back by workers. */
import type { RoutingGroup } from '../images/resolve-media-model';

export interface VideoTaskRequest {
  kind: 'video';
  prompt: string;
  durationSeconds: number;
  resolution: string;
  aspectRatio: string;
  negativePrompt?: string;
  seed?: number;
  /** Initial image (base64), for image-to-video. */
  image?: { mediaType: string; data: string };
  /** The key's routing group at submit: the task is routed by it even if the key changes later. */
  group: RoutingGroup;
}

export interface ImageBatchTaskRequest {
  kind: 'image_batch';
  prompts: string[];
  /** Images per prompt. */
  n: number;
  size: string;
  quality?: string;
  style?: string;
  outputFormat?: 'png' | 'jpeg' | 'webp';
  outputCompression?: number;
  background?: string;
  group: RoutingGroup;
}

export type TaskRequest = VideoTaskRequest | ImageBatchTaskRequest;
