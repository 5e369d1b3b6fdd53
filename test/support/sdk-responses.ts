/**
 * Test helpers for the Responses codec: a deterministic codec context, capture loading and SSE
 * replay, random byte splitting, and an official OpenAI SDK client whose fetch returns canned bodies.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import OpenAI from 'openai';
import type { ContentPart } from '../../src/ir/parts';
import type { FinishReason } from '../../src/ir/finish-reason';
import type { IrStreamEvent } from '../../src/ir/stream-event';
import type { Usage } from '../../src/ir/usage';
import type { GatewayError } from '../../src/errors/gateway-error';
import type { CodecContext, UpstreamDecodeContext } from '../../src/protocols/codec';

/** Ids `<prefix><n>` counted per prefix, and a fixed clock: the same calls give the same output. */
export function deterministicContext(now = 1_767_225_600): CodecContext {
  const counters = new Map<string, number>();
  return {
    newId(prefix: string): string {
      const next = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, next);
      return `${prefix}${next}`;
    },
    now: () => now,
  };
}

export function decodeContext(toolNames: Record<string, string> = {}): UpstreamDecodeContext {
  return { ...deterministicContext(), toolNames };
}

/** `<repo>/../shared/captures`, or undefined when the folder is absent. */
export function capturesRoot(): string | undefined {
  const root = path.resolve(__dirname, '..', '..', '..', 'shared', 'captures');
  return fs.existsSync(root) ? root : undefined;
}

export function readCaptureLines(file: string): string[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** Responses captures replay as `event: <type>\ndata: <line>\n\n` (captures README). */
export function toResponsesSse(lines: string[]): string {
  return lines.map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`).join('');
}

/** A small seeded generator, so a failing split can be reproduced from the seed in the test name. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Splits the UTF-8 bytes of `text` at random offsets (inside multi-byte characters too) and decodes
 * them with a streaming TextDecoder, as the relay turns socket bytes into text.
 */
export function splitBytesRandomly(text: string, random: () => number, maxPiece = 40): string[] {
  const bytes = Buffer.from(text, 'utf8');
  const decoder = new TextDecoder('utf-8');
  const pieces: string[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const size = 1 + Math.floor(random() * maxPiece);
    pieces.push(decoder.decode(bytes.subarray(offset, offset + size), { stream: true }));
    offset += size;
  }
  pieces.push(decoder.decode());
  return pieces;
}

/** An official SDK client whose every request is answered with `respond()`. */
export function sdkClient(respond: () => Response): OpenAI {
  return new OpenAI({
    apiKey: 'sk-test',
    baseURL: 'http://127.0.0.1:9/v1',
    maxRetries: 0,
    fetch: async () => respond(),
  });
}

export function sseResponse(frames: string[]): Response {
  return new Response(frames.join(''), { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

export interface CollectedStream {
  id?: string;
  model?: string;
  parts: ContentPart[];
  finish?: FinishReason;
  usage?: Usage;
  error?: GatewayError;
}

/**
 * Folds IR stream events into parts, checking the IR stream contract on the way: `start` first
 * and once, block indexes contiguous from 0, one open block at a time, deltas only to the open
 * block, nothing after an error.
 */
export function collectIrStream(events: IrStreamEvent[]): CollectedStream {
  const result: CollectedStream = { parts: [] };
  let started = false;
  let open: number | undefined;
  let nextIndex = 0;
  const fail = (message: string): never => {
    throw new Error(`IR stream contract: ${message}`);
  };
  for (const event of events) {
    if (result.error !== undefined) fail(`${event.type} after error`);
    if (!started && event.type !== 'start' && event.type !== 'error') fail(`${event.type} before start`);
    const part = open === undefined ? undefined : result.parts[open];
    const needOpen = (index: number): ContentPart => {
      if (open !== index || part === undefined) fail(`${event.type} for block ${index} while ${open} is open`);
      return part as ContentPart;
    };
    switch (event.type) {
      case 'start':
        if (started) fail('second start');
        started = true;
        result.id = event.id;
        result.model = event.model;
        break;
      case 'block_start': {
        if (open !== undefined) fail(`block ${event.index} starts while ${open} is open`);
        if (event.index !== nextIndex) fail(`block index ${event.index}, expected ${nextIndex}`);
        nextIndex++;
        open = event.index;
        const block = event.block;
        switch (block.kind) {
          case 'text':
            result.parts.push({ type: 'text', text: '' });
            break;
          case 'refusal':
            result.parts.push({ type: 'refusal', text: '' });
            break;
          case 'reasoning':
            result.parts.push({ type: 'reasoning', text: '', ...(block.itemId ? { itemId: block.itemId } : {}) });
            break;
          case 'tool_call':
            result.parts.push({
              type: 'tool_call',
              id: block.id,
              name: block.name,
              argumentsJson: '',
              ...(block.signature ? { signature: block.signature } : {}),
            });
            break;
          case 'native':
            result.parts.push(block.part);
            break;
        }
        break;
      }
      case 'text_delta':
      case 'refusal_delta':
      case 'reasoning_delta': {
        const target = needOpen(event.index);
        if (target.type !== 'text' && target.type !== 'refusal' && target.type !== 'reasoning') fail(`${event.type} on ${target.type}`);
        (target as { text: string }).text += event.text;
        break;
      }
      case 'tool_args_delta': {
        const target = needOpen(event.index);
        if (target.type !== 'tool_call') fail(`tool_args_delta on ${target.type}`);
        (target as { argumentsJson: string }).argumentsJson += event.json;
        break;
      }
      case 'reasoning_opaque': {
        const target = needOpen(event.index);
        if (target.type !== 'reasoning') fail(`reasoning_opaque on ${target.type}`);
        (target as unknown as Record<string, unknown>)[event.field] = event.value;
        break;
      }
      case 'block_end':
        needOpen(event.index);
        open = undefined;
        break;
      case 'usage':
        result.usage = event.usage;
        break;
      case 'finish':
        if (open !== undefined) fail('finish with an open block');
        result.finish = event.finish;
        break;
      case 'error':
        result.error = event.error;
        break;
    }
  }
  return result;
}
