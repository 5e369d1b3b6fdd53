/** Follows a translated stream's IR events into the usage tally billing reads (see ir/usage-tally). */
import type { IrStreamEvent } from '../ir/stream-event';
import { UsageTally } from '../ir/usage-tally';

export function observeUsage(tally: UsageTally, event: IrStreamEvent): void {
  switch (event.type) {
    case 'start':
      if (event.usage) tally.report(event.usage, false);
      break;
    case 'usage':
      tally.report(event.usage, true);
      break;
    case 'text_delta':
    case 'reasoning_delta':
    case 'refusal_delta':
      tally.count(event.text);
      break;
    case 'tool_args_delta':
      tally.count(event.json);
      break;
    default:
      break;
  }
}
