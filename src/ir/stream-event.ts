import type { GatewayError } from '../errors/gateway-error';
import type { FinishReason } from './finish-reason';
import type { Opaque } from './opaque';
import type { NativePart } from './parts';
import type { Usage } from './usage';

/** What kind of block a `block_start` opens. */
export type StreamBlock =
  | { kind: 'text' }
  | { kind: 'reasoning'; itemId?: Opaque }
  | { kind: 'tool_call'; id: string; name: string; signature?: Opaque }
  | { kind: 'refusal' }
  | { kind: 'native'; part: NativePart };

/**
 * Events a stream decoder produces from upstream frames and a stream encoder consumes.
 * Block indexes are assigned by the decoder, contiguous from 0, one block open at a time.
 */
export type IrStreamEvent =
  | { type: 'start'; id: string; model: string; usage?: Partial<Usage> }
  | { type: 'block_start'; index: number; block: StreamBlock }
  | { type: 'text_delta'; index: number; text: string }
  | { type: 'reasoning_delta'; index: number; text: string }
  /** Opaque reasoning payloads: a signature, redacted data or encrypted content. */
  | { type: 'reasoning_opaque'; index: number; field: 'signature' | 'redacted' | 'encrypted'; value: Opaque }
  | { type: 'tool_args_delta'; index: number; json: string }
  | { type: 'refusal_delta'; index: number; text: string }
  | { type: 'block_end'; index: number }
  /** Cumulative usage so far; the last one wins. */
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; finish: FinishReason }
  | { type: 'error'; error: GatewayError };

export type IrStreamEventType = IrStreamEvent['type'];
