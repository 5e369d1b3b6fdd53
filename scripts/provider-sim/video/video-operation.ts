/** A simulated long-running video generation. */
export interface VideoOperation {
  id: string;
  /** `models/<model>/operations/<id>`. */
  name: string;
  prompt: string;
  durationSeconds: number;
  resolution: string;
  aspectRatio: string;
  sampleCount: number;
  /** When the operation reports done (epoch ms). */
  doneAt: number;
  cancelled: boolean;
}
