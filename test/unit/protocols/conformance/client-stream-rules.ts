/**
 * The event-sequence rules each protocol's official SDK relies on (PROTOCOLS.md section 4), checked
 * on the frames a stream encoder wrote: contiguous block indexes, one open block at a time,
 * tool-call indexes counted per tool, one finish after every delta, a terminal event last.
 */
import type { Protocol } from '../../../../src/ir/protocol';
import { SseParser } from '../../../../src/protocols/shared/sse-parser';
import { asArray, asRecord, dig } from '../matrix/wire';

export interface ClientFrame {
  event?: string;
  /** Parsed JSON, or the string `[DONE]`. */
  data: unknown;
}

export function parseFrames(frames: readonly string[]): ClientFrame[] {
  const parser = new SseParser();
  const events = [...parser.push(frames.join('')), ...parser.end()];
  return events.map((event) => ({ event: event.event, data: event.data === '[DONE]' ? '[DONE]' : (JSON.parse(event.data) as unknown) }));
}

/** Throws with a message naming the broken rule; returns the parsed frames. */
export function checkClientStream(protocol: Protocol, frames: readonly string[], options: { includeUsage?: boolean } = {}): ClientFrame[] {
  const parsed = parseFrames(frames);
  if (parsed.length === 0) throw new Error('no frames');
  switch (protocol) {
    case 'messages':
      checkMessages(parsed);
      break;
    case 'chat':
      checkChat(parsed, options.includeUsage === true);
      break;
    case 'responses':
      checkResponses(parsed);
      break;
    case 'generate-content':
      checkGenerateContent(parsed);
      break;
  }
  return parsed;
}

function fail(rule: string, at: number, frame: ClientFrame | undefined): never {
  throw new Error(`${rule} (frame ${at}: ${JSON.stringify(frame)})`);
}

function checkMessages(frames: ClientFrame[]): void {
  let open: number | undefined;
  let next = 0;
  let deltas = 0;
  frames.forEach((frame, at) => {
    const type = dig(frame.data, 'type');
    if (frame.event !== type) fail('the event name must equal data.type (the SDK dispatches on the name)', at, frame);
    if (at === 0 && type !== 'message_start') fail('message_start first', at, frame);
    if (at > 0 && type === 'message_start') fail('one message_start only', at, frame);
    const index = dig(frame.data, 'index');
    switch (type) {
      case 'content_block_start':
        if (open !== undefined) fail(`block ${String(index)} starts while ${open} is open`, at, frame);
        if (index !== next) fail(`block indexes contiguous from 0: expected ${next}`, at, frame);
        open = next++;
        break;
      case 'content_block_delta':
        if (index !== open) fail('a delta for a block that is not open', at, frame);
        break;
      case 'content_block_stop':
        if (index !== open) fail('a stop for a block that is not open', at, frame);
        open = undefined;
        break;
      case 'message_delta':
        if (open !== undefined) fail('message_delta with a block still open', at, frame);
        deltas++;
        if (typeof dig(frame.data, 'delta', 'stop_reason') !== 'string') fail('message_delta carries the stop_reason', at, frame);
        if (typeof dig(frame.data, 'usage', 'output_tokens') !== 'number') fail('message_delta carries usage.output_tokens', at, frame);
        break;
      case 'message_stop':
        if (at !== frames.length - 1) fail('message_stop last', at, frame);
        break;
      case 'ping':
        break;
      default:
        if (type !== 'message_start') fail('an event type the SDK does not know', at, frame);
    }
  });
  if (deltas !== 1) fail(`exactly one message_delta, got ${deltas}`, frames.length - 1, frames[frames.length - 1]);
  if (dig(frames[frames.length - 1]!.data, 'type') !== 'message_stop')
    fail('message_stop last', frames.length - 1, frames[frames.length - 1]);
}

function checkChat(frames: ClientFrame[], includeUsage: boolean): void {
  const last = frames[frames.length - 1]!;
  if (last.data !== '[DONE]') fail('[DONE] last', frames.length - 1, last);
  const chunks = frames.slice(0, -1);
  let finishes = 0;
  let usageChunks = 0;
  let nextTool = 0;
  const ids = new Set<unknown>();
  chunks.forEach((frame, at) => {
    if (frame.event !== undefined) fail('Chat frames have no event names', at, frame);
    if (frame.data === '[DONE]') fail('one [DONE]', at, frame);
    if (dig(frame.data, 'object') !== 'chat.completion.chunk') fail('object chat.completion.chunk', at, frame);
    ids.add(dig(frame.data, 'id'));
    const choices = asArray(dig(frame.data, 'choices'));
    if (choices.length === 0) {
      if (dig(frame.data, 'usage') === undefined) fail('a chunk without choices is the usage chunk', at, frame);
      if (finishes !== 1) fail('the usage chunk comes after the finish', at, frame);
      usageChunks++;
      return;
    }
    if (usageChunks > 0) fail('nothing but [DONE] after the usage chunk', at, frame);
    for (const choice of choices) {
      if (dig(choice, 'index') !== 0) fail('choices[].index stays 0 (pitfall 20)', at, frame);
      if (finishes > 0) fail('no delta after the finish', at, frame);
      const reason = dig(choice, 'finish_reason');
      if (reason !== null && reason !== undefined) finishes++;
      if (at === 0 && dig(choice, 'delta', 'role') !== 'assistant') fail('the first delta has role assistant', at, frame);
      for (const call of asArray(dig(choice, 'delta', 'tool_calls'))) {
        const index = dig(call, 'index');
        if (index === nextTool) {
          // A new call: id, type and name arrive in its first delta.
          if (
            typeof dig(call, 'id') !== 'string' ||
            dig(call, 'type') !== 'function' ||
            typeof dig(call, 'function', 'name') !== 'string'
          ) {
            fail('the first delta of a tool call carries id, type and name', at, frame);
          }
          nextTool++;
        } else if (index !== nextTool - 1) {
          fail(`tool-call indexes count tools from 0 (pitfall 24): expected ${nextTool - 1} or ${nextTool}`, at, frame);
        } else if (dig(call, 'id') !== undefined) {
          fail('a later delta of a tool call repeats no id (the SDK would start a new call)', at, frame);
        }
      }
    }
  });
  if (finishes !== 1) fail(`exactly one finish_reason, got ${finishes}`, chunks.length - 1, chunks[chunks.length - 1]);
  if (usageChunks !== (includeUsage ? 1 : 0))
    fail(`usage chunk ${includeUsage ? 'required' : 'only when asked'}`, chunks.length - 1, chunks[chunks.length - 1]);
  if (ids.size !== 1) fail('one completion id throughout', 0, chunks[0]);
}

const RESPONSES_TERMINALS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

function checkResponses(frames: ClientFrame[]): void {
  let sequence: number | undefined;
  let openItem: number | undefined;
  let nextItem = 0;
  let openPart = false;
  frames.forEach((frame, at) => {
    const type = String(dig(frame.data, 'type'));
    if (frame.event !== type) fail('the event name equals data.type', at, frame);
    const number = dig(frame.data, 'sequence_number');
    if (typeof number !== 'number' || (sequence !== undefined && number !== sequence + 1))
      fail('sequence_number increases by one', at, frame);
    sequence = number;
    if (at === 0 && type !== 'response.created') fail('response.created first', at, frame);
    if (at === 1 && type !== 'response.in_progress') fail('response.in_progress second', at, frame);
    const outputIndex = dig(frame.data, 'output_index');
    if (type === 'response.output_item.added') {
      if (openItem !== undefined) fail('one output item open at a time', at, frame);
      if (outputIndex !== nextItem) fail(`output_index contiguous from 0: expected ${nextItem}`, at, frame);
      openItem = nextItem++;
    } else if (type === 'response.output_item.done') {
      if (outputIndex !== openItem) fail('output_item.done for the open item', at, frame);
      if (openPart) fail('the content part is closed before its item', at, frame);
      openItem = undefined;
    } else if (type === 'response.content_part.added' || type === 'response.reasoning_summary_part.added') {
      if (outputIndex !== openItem) fail('a part of the open item', at, frame);
      openPart = true;
    } else if (type === 'response.content_part.done' || type === 'response.reasoning_summary_part.done') {
      openPart = false;
    } else if (type.endsWith('.delta')) {
      // The SDK throws if a delta arrives before its item (and, for text, its part) was added.
      if (outputIndex !== openItem) fail('a delta for the open item', at, frame);
      if ((type === 'response.output_text.delta' || type === 'response.reasoning_summary_text.delta') && !openPart)
        fail('a text delta inside an open part', at, frame);
    } else if (RESPONSES_TERMINALS.has(type)) {
      if (at !== frames.length - 1) fail('the terminal event is last', at, frame);
      if (openItem !== undefined) fail('every item closed before the terminal event', at, frame);
      const output = asArray(dig(frame.data, 'response', 'output'));
      if (output.length !== nextItem) fail('the terminal response lists every output item', at, frame);
    }
  });
  const last = frames[frames.length - 1]!;
  if (!RESPONSES_TERMINALS.has(String(dig(last.data, 'type')))) fail('a terminal event always (pitfall 22)', frames.length - 1, last);
}

function checkGenerateContent(frames: ClientFrame[]): void {
  frames.forEach((frame, at) => {
    if (frame.event !== undefined) fail('Generate-Content frames have no event names', at, frame);
    const candidate = asRecord(asArray(dig(frame.data, 'candidates'))[0]);
    const finish = candidate.finishReason;
    const isLast = at === frames.length - 1;
    if (!isLast && finish !== undefined) fail('finishReason only on the last chunk (pitfall 12)', at, frame);
    if (isLast && typeof finish !== 'string') fail('the last chunk carries finishReason', at, frame);
    if (isLast && dig(frame.data, 'usageMetadata') === undefined) fail('the last chunk carries usageMetadata', at, frame);
    for (const part of asArray(dig(candidate, 'content', 'parts'))) {
      const call = dig(part, 'functionCall');
      if (call !== undefined && (typeof dig(call, 'name') !== 'string' || typeof dig(call, 'args') !== 'object')) {
        fail('a functionCall arrives whole, with its args object', at, frame);
      }
    }
  });
}
