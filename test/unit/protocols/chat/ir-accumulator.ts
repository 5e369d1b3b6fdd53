/** Folds IR stream events into the IrResponse they describe, for comparing streamed and whole answers. */
import type { GatewayError } from '../../../../src/errors/gateway-error';
import type { FinishReason } from '../../../../src/ir/finish-reason';
import type { ContentPart } from '../../../../src/ir/parts';
import type { IrResponse } from '../../../../src/ir/response';
import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import { ZERO_USAGE, type Usage } from '../../../../src/ir/usage';

export interface Accumulated {
  response: IrResponse;
  finish: FinishReason | undefined;
  errors: GatewayError[];
}

export function accumulateIrEvents(events: readonly IrStreamEvent[]): Accumulated {
  let id = '';
  let model = '';
  let usage: Usage = ZERO_USAGE;
  let finish: FinishReason | undefined;
  const errors: GatewayError[] = [];
  const parts = new Map<number, ContentPart>();
  for (const event of events) {
    switch (event.type) {
      case 'start':
        id = event.id;
        model = event.model;
        break;
      case 'block_start': {
        const block = event.block;
        switch (block.kind) {
          case 'text':
            parts.set(event.index, { type: 'text', text: '' });
            break;
          case 'refusal':
            parts.set(event.index, { type: 'refusal', text: '' });
            break;
          case 'reasoning':
            parts.set(event.index, block.itemId ? { type: 'reasoning', text: '', itemId: block.itemId } : { type: 'reasoning', text: '' });
            break;
          case 'tool_call':
            parts.set(event.index, {
              type: 'tool_call',
              id: block.id,
              name: block.name,
              argumentsJson: '',
              ...(block.signature ? { signature: block.signature } : {}),
            });
            break;
          case 'native':
            parts.set(event.index, block.part);
            break;
        }
        break;
      }
      case 'text_delta':
      case 'refusal_delta':
      case 'reasoning_delta': {
        const part = parts.get(event.index);
        if (part && (part.type === 'text' || part.type === 'refusal' || part.type === 'reasoning')) part.text += event.text;
        break;
      }
      case 'reasoning_opaque': {
        const part = parts.get(event.index);
        if (part?.type === 'reasoning') part[event.field] = event.value;
        break;
      }
      case 'tool_args_delta': {
        const part = parts.get(event.index);
        if (part?.type === 'tool_call') part.argumentsJson += event.json;
        break;
      }
      case 'block_end':
        break;
      case 'usage':
        usage = event.usage;
        break;
      case 'finish':
        finish = event.finish;
        break;
      case 'error':
        errors.push(event.error);
        break;
    }
  }
  const ordered = [...parts.entries()].sort(([a], [b]) => a - b).map(([, part]) => part);
  return {
    response: { id, model, parts: ordered, finish: finish ?? { unified: 'error', raw: null }, usage },
    finish,
    errors,
  };
}

/**
 * The stream contract every decoder must keep: `start` first and once, block indexes contiguous
 * from 0, one block open at a time, every block closed, deltas only inside their open block.
 * Returns the list of violations (empty when the sequence is well formed).
 */
export function streamContractViolations(events: readonly IrStreamEvent[]): string[] {
  const problems: string[] = [];
  let open: number | undefined;
  let next = 0;
  let starts = 0;
  events.forEach((event, position) => {
    if (position === 0 && event.type !== 'start' && event.type !== 'error') problems.push(`first event is ${event.type}`);
    switch (event.type) {
      case 'start':
        starts++;
        break;
      case 'block_start':
        if (open !== undefined) problems.push(`block ${event.index} opened while ${open} is open`);
        if (event.index !== next) problems.push(`block index ${event.index}, expected ${next}`);
        open = event.index;
        next = event.index + 1;
        break;
      case 'block_end':
        if (open !== event.index) problems.push(`block_end ${event.index} but open is ${String(open)}`);
        open = undefined;
        break;
      case 'text_delta':
      case 'reasoning_delta':
      case 'refusal_delta':
      case 'tool_args_delta':
      case 'reasoning_opaque':
        if (open !== event.index) problems.push(`${event.type} for ${event.index} while open is ${String(open)}`);
        break;
      default:
        break;
    }
  });
  if (starts > 1) problems.push(`${starts} start events`);
  if (open !== undefined) problems.push(`block ${open} never closed`);
  return problems;
}
