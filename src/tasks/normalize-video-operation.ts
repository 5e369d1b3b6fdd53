/**
 * A provider's long-running video operation → one of three states (PROTOCOLS 7): not done →
 * running; done with `error` → failed; done with no samples but filtered reasons → failed (content
 * filter); done with samples → succeeded. Lenient on shape: both the REST form
 * (`generateVideoResponse.generatedSamples`) and the SDK form (`generatedVideos`) are read.
 */
import { z } from 'zod';

const videoSchema = z.looseObject({
  uri: z.string().nullish(),
  bytesBase64Encoded: z.string().nullish(),
  videoBytes: z.string().nullish(),
  mimeType: z.string().nullish(),
  encoding: z.string().nullish(),
});
const sampleSchema = z.looseObject({ video: videoSchema.nullish() });
const videoResponseSchema = z.looseObject({
  generatedSamples: z.array(sampleSchema).nullish(),
  generatedVideos: z.array(sampleSchema).nullish(),
  raiMediaFilteredReasons: z.array(z.string()).nullish(),
  raiMediaFilteredCount: z.number().nullish(),
});

export const videoOperationSchema = z.looseObject({
  name: z.string().nullish(),
  done: z.boolean().nullish(),
  metadata: z.looseObject({ progressPercent: z.number().nullish(), progress: z.number().nullish() }).nullish(),
  error: z.looseObject({ code: z.number().nullish(), message: z.string().nullish(), status: z.string().nullish() }).nullish(),
  response: z
    .looseObject({
      generateVideoResponse: videoResponseSchema.nullish(),
      generatedVideos: z.array(sampleSchema).nullish(),
      generatedSamples: z.array(sampleSchema).nullish(),
      raiMediaFilteredReasons: z.array(z.string()).nullish(),
    })
    .nullish(),
});

export interface ProducedVideo {
  uri?: string;
  /** Base64 bytes, when the provider inlines the video instead of linking it. */
  inlineData?: string;
  mimeType: string;
}

export type VideoOperationState =
  | { state: 'running'; progress?: number }
  | { state: 'succeeded'; videos: ProducedVideo[] }
  | { state: 'failed'; code: 'provider_error' | 'content_filtered' | 'cancelled_upstream'; message: string };

export function normalizeVideoOperation(body: unknown): VideoOperationState {
  const parsed = videoOperationSchema.safeParse(body);
  if (!parsed.success) return { state: 'failed', code: 'provider_error', message: 'the provider answered an operation of unknown shape' };
  const operation = parsed.data;
  if (operation.done !== true) {
    const progress = operation.metadata?.progressPercent ?? operation.metadata?.progress;
    return typeof progress === 'number' && progress >= 0 && progress <= 100
      ? { state: 'running', progress: Math.floor(progress) }
      : { state: 'running' };
  }
  if (operation.error) {
    const message = operation.error.message || `provider error ${operation.error.status ?? operation.error.code ?? ''}`.trim();
    const cancelled = operation.error.status === 'CANCELLED' || operation.error.code === 1;
    return { state: 'failed', code: cancelled ? 'cancelled_upstream' : 'provider_error', message };
  }
  const response = operation.response;
  const inner = response?.generateVideoResponse;
  const samples = inner?.generatedSamples ?? inner?.generatedVideos ?? response?.generatedSamples ?? response?.generatedVideos ?? [];
  const videos: ProducedVideo[] = [];
  for (const sample of samples) {
    const video = sample.video;
    if (!video) continue;
    const mimeType = video.mimeType ?? video.encoding ?? 'video/mp4';
    if (video.uri) videos.push({ uri: video.uri, mimeType });
    else if (video.bytesBase64Encoded ?? video.videoBytes)
      videos.push({ inlineData: (video.bytesBase64Encoded ?? video.videoBytes)!, mimeType });
  }
  if (videos.length > 0) return { state: 'succeeded', videos };
  const reasons = inner?.raiMediaFilteredReasons ?? response?.raiMediaFilteredReasons ?? [];
  if (reasons.length > 0 || (inner?.raiMediaFilteredCount ?? 0) > 0) {
    return {
      state: 'failed',
      code: 'content_filtered',
      message: reasons.length > 0 ? `the provider filtered the video: ${reasons.join('; ')}` : 'the provider filtered the video',
    };
  }
  return { state: 'failed', code: 'provider_error', message: 'the provider finished without a video' };
}
