/** What a task worker step is built from: the process dependencies plus its own upstream plumbing. */
import type { Dependencies } from '../src/dependencies';
import type { ImageUpstreamContext } from '../src/images/generate-images';
import type { WalletCache } from '../src/limits/wallet-cache';
import type { VideoOperations } from '../src/tasks/video-operations';

export interface TaskWorkerHooks {
  /** Test seam: runs after the media is in S3 and before the task is finalized (e.g. to kill a worker there). */
  beforeFinalize?(taskId: string): Promise<void>;
}

export interface TaskContext {
  deps: Dependencies;
  images: ImageUpstreamContext;
  video: VideoOperations;
  wallet: WalletCache;
  hooks: TaskWorkerHooks;
  /** Delay before the next provider poll, from the time since the task started running. */
  pollDelayMs(elapsedMs: number): number;
}

/** Interface 4.6 cadence: every 2 s for the first 60 s, then every 5 s. */
export function defaultPollDelayMs(elapsedMs: number): number {
  return elapsedMs < 60_000 ? 2_000 : 5_000;
}
