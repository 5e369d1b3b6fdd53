/** Shared fixtures for the Messages codec tests (not a test file). */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FinishReason } from '../../../../src/ir/finish-reason';
import type { ContentPart } from '../../../../src/ir/parts';
import type { IrRequest } from '../../../../src/ir/request';
import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import type { Usage } from '../../../../src/ir/usage';
import type { CodecContext, UpstreamDecodeContext, UpstreamTarget } from '../../../../src/protocols/codec';
import type { GatewayError } from '../../../../src/errors/gateway-error';

/** Deterministic ids: `<prefix>test<n>`. */
export function testContext(): CodecContext {
  let n = 0;
  return { newId: (prefix) => `${prefix}test${++n}`, now: () => 1_767_225_600 };
}

export function decodeContext(extra: Partial<UpstreamDecodeContext> = {}): UpstreamDecodeContext {
  return { ...testContext(), toolNames: {}, ...extra };
}

export const TARGET: UpstreamTarget = { upstreamModel: 'claude-sonnet-4-5-20250929', maxOutputTokens: 16_384, nativeJsonSchema: false };

export function irRequest(overrides: Partial<IrRequest> = {}): IrRequest {
  return {
    model: 'claude-sonnet-4-5',
    system: [],
    turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hello' }] }],
    tools: [],
    builtinTools: [],
    sampling: {},
    stream: false,
    ...overrides,
  };
}

export interface AssembledStream {
  id?: string;
  model?: string;
  parts: ContentPart[];
  finish?: FinishReason;
  usage?: Usage;
  error?: GatewayError;
  /** Block indexes as seen, to check contiguity. */
  indexes: number[];
}

/** Folds IR stream events into answer parts, the way a relay would to build a complete answer. */
export function assembleStream(events: readonly IrStreamEvent[]): AssembledStream {
  const out: AssembledStream = { parts: [], indexes: [] };
  const open = new Map<number, ContentPart>();
  for (const event of events) {
    switch (event.type) {
      case 'start':
        out.id = event.id;
        out.model = event.model;
        break;
      case 'block_start': {
        out.indexes.push(event.index);
        const block = event.block;
        let part: ContentPart;
        if (block.kind === 'text') part = { type: 'text', text: '' };
        else if (block.kind === 'refusal') part = { type: 'refusal', text: '' };
        else if (block.kind === 'reasoning') part = { type: 'reasoning', text: '', ...(block.itemId ? { itemId: block.itemId } : {}) };
        else if (block.kind === 'tool_call')
          part = {
            type: 'tool_call',
            id: block.id,
            name: block.name,
            argumentsJson: '',
            ...(block.signature ? { signature: block.signature } : {}),
          };
        else part = block.part;
        open.set(event.index, part);
        out.parts.push(part);
        break;
      }
      case 'text_delta': {
        const p = open.get(event.index);
        if (p?.type === 'text') p.text += event.text;
        break;
      }
      case 'refusal_delta': {
        const p = open.get(event.index);
        if (p?.type === 'refusal') p.text += event.text;
        break;
      }
      case 'reasoning_delta': {
        const p = open.get(event.index);
        if (p?.type === 'reasoning') p.text += event.text;
        break;
      }
      case 'reasoning_opaque': {
        const p = open.get(event.index);
        if (p?.type === 'reasoning') p[event.field] = event.value;
        break;
      }
      case 'tool_args_delta': {
        const p = open.get(event.index);
        if (p?.type === 'tool_call') p.argumentsJson += event.json;
        break;
      }
      case 'block_end':
        open.delete(event.index);
        break;
      case 'usage':
        out.usage = event.usage;
        break;
      case 'finish':
        out.finish = event.finish;
        break;
      case 'error':
        out.error = event.error;
        break;
    }
  }
  return out;
}

/** The captures folder beside the project, or undefined when it is absent. */
export const CAPTURES_DIR = path.resolve(__dirname, '..', '..', '..', '..', '..', 'shared', 'captures', 'messages');
export const HAVE_CAPTURES = fs.existsSync(CAPTURES_DIR);

export function captureNames(suffix: '.chunks.txt' | '.json'): string[] {
  if (!HAVE_CAPTURES) return [];
  return fs
    .readdirSync(CAPTURES_DIR)
    .filter((name) => name.endsWith(suffix))
    .map((name) => name.slice(0, -suffix.length))
    .sort();
}

export function readCaptureJson(name: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(CAPTURES_DIR, `${name}.json`), 'utf8')) as unknown;
}

/** A `.chunks.txt` capture replayed as Messages SSE (captures README: `event: <type>` + `data: <line>`). */
export function readCaptureSse(name: string): string {
  const lines = fs
    .readFileSync(path.join(CAPTURES_DIR, `${name}.chunks.txt`), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  return lines.map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`).join('');
}

/** A small seeded generator, so a failing random split can be reproduced. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 0x1_0000_0000;
  };
}

/** Cuts `text` at `count` random offsets. */
export function splitRandomly(text: string, count: number, random: () => number): string[] {
  const cuts = Array.from({ length: count }, () => Math.floor(random() * (text.length + 1))).sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const cut of cuts) {
    pieces.push(text.slice(from, cut));
    from = cut;
  }
  pieces.push(text.slice(from));
  return pieces;
}
