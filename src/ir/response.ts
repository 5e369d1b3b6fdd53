import type { FinishReason } from './finish-reason';
import type { ContentPart } from './parts';
import type { Usage } from './usage';

/** A complete (non-streamed) model answer. */
export interface IrResponse {
  id: string;
  /** The upstream's model name as it answered; the relay reports the catalog slug to clients. */
  model: string;
  /** Assistant output in order: reasoning, text, tool calls, refusals, native blocks. */
  parts: ContentPart[];
  finish: FinishReason;
  usage: Usage;
  /** Unix seconds, when the upstream said. */
  created?: number;
}
