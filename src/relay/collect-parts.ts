/** Rebuilds the assistant's content parts from IR stream events (to store a streamed Responses answer). */
import type { ContentPart } from '../ir/parts';
import type { IrStreamEvent } from '../ir/stream-event';

export interface PartCollector {
  observe(event: IrStreamEvent): void;
  result(): ContentPart[];
}

export function collectParts(): PartCollector {
  const parts: ContentPart[] = [];
  const open = new Map<number, ContentPart>();
  return {
    observe(event) {
      switch (event.type) {
        case 'block_start': {
          const block = event.block;
          let part: ContentPart;
          switch (block.kind) {
            case 'text':
              part = { type: 'text', text: '' };
              break;
            case 'reasoning':
              part = { type: 'reasoning', text: '', itemId: block.itemId };
              break;
            case 'tool_call':
              part = { type: 'tool_call', id: block.id, name: block.name, argumentsJson: '', signature: block.signature };
              break;
            case 'refusal':
              part = { type: 'refusal', text: '' };
              break;
            case 'native':
              part = block.part;
              break;
          }
          open.set(event.index, part);
          parts.push(part);
          break;
        }
        case 'text_delta': {
          const p = open.get(event.index);
          if (p?.type === 'text') p.text += event.text;
          break;
        }
        case 'reasoning_delta': {
          const p = open.get(event.index);
          if (p?.type === 'reasoning') p.text += event.text;
          break;
        }
        case 'refusal_delta': {
          const p = open.get(event.index);
          if (p?.type === 'refusal') p.text += event.text;
          break;
        }
        case 'tool_args_delta': {
          const p = open.get(event.index);
          if (p?.type === 'tool_call') p.argumentsJson += event.json;
          break;
        }
        case 'reasoning_opaque': {
          const p = open.get(event.index);
          if (p?.type === 'reasoning') p[event.field] = event.value;
          break;
        }
        case 'block_end':
          open.delete(event.index);
          break;
        default:
          break;
      }
    },
    result: () => parts,
  };
}
