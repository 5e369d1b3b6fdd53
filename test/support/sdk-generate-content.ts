/**
 * Test helpers for the Generate-Content codec: a deterministic codec context, the captures folder,
 * and the official @google/genai client wired to a fake `fetch` (no network) that answers what a
 * test gives it and records what the SDK sent.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as genai from '@google/genai';
import type { GatewayError } from '../../src/errors/gateway-error';
import type { ContentPart } from '../../src/ir/parts';
import type { IrResponse } from '../../src/ir/response';
import type { IrStreamEvent } from '../../src/ir/stream-event';
import { ZERO_USAGE } from '../../src/ir/usage';
import type { UpstreamDecodeContext } from '../../src/protocols/codec';

export { genai };
export type GoogleGenAI = genai.GoogleGenAI;

export function testContext(toolNames: Record<string, string> = {}): UpstreamDecodeContext {
  let counter = 0;
  return { newId: (prefix: string) => `${prefix}id${++counter}`, now: () => 1_700_000_000, toolNames };
}

/** `<repo>/../shared/captures/<protocol>`, or undefined when the folder is absent. */
export function capturesDir(protocol: string): string | undefined {
  const dir = path.resolve(__dirname, '..', '..', '..', 'shared', 'captures', protocol);
  return fs.existsSync(dir) ? dir : undefined;
}

export interface SentRequest {
  url: string;
  method: string;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

export interface FakeAnswer {
  status?: number;
  body: string;
  headers?: Record<string, string>;
}

/** A GoogleGenAI client whose every request is answered by `answer` (called once per request). */
export function sdkClient(answer: (request: SentRequest) => FakeAnswer): { client: GoogleGenAI; sent: SentRequest[] } {
  const sent: SentRequest[] = [];
  const fakeFetch = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url;
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const rawBody = typeof init?.body === 'string' ? init.body : '{}';
    const request: SentRequest = { url, method: init?.method ?? 'GET', body: JSON.parse(rawBody) as Record<string, unknown>, headers };
    sent.push(request);
    const reply = answer(request);
    return new Response(reply.body, { status: reply.status ?? 200, headers: reply.headers ?? { 'content-type': 'application/json' } });
  };
  const client = new genai.GoogleGenAI({
    apiKey: 'sk-svc-test',
    httpOptions: { baseUrl: 'http://127.0.0.1:9', apiVersion: 'v1beta', fetch: fakeFetch },
  });
  return { client, sent };
}

/**
 * Folds IR stream events into the complete answer they describe (what a non-streamed decode of
 * the same answer gives), for comparing streamed and non-streamed paths.
 */
export function foldStreamEvents(events: IrStreamEvent[]): IrResponse & { error?: GatewayError } {
  const response: IrResponse & { error?: GatewayError } = {
    id: '',
    model: '',
    parts: [],
    finish: { unified: 'other', raw: null },
    usage: { ...ZERO_USAGE },
  };
  const blocks = new Map<number, ContentPart>();
  for (const event of events) {
    switch (event.type) {
      case 'start':
        response.id = event.id;
        response.model = event.model;
        break;
      case 'block_start': {
        const block = event.block;
        let part: ContentPart;
        if (block.kind === 'text') part = { type: 'text', text: '' };
        else if (block.kind === 'reasoning') part = { type: 'reasoning', text: '', ...(block.itemId ? { itemId: block.itemId } : {}) };
        else if (block.kind === 'tool_call')
          part = {
            type: 'tool_call',
            id: block.id,
            name: block.name,
            argumentsJson: '',
            ...(block.signature ? { signature: block.signature } : {}),
          };
        else if (block.kind === 'refusal') part = { type: 'refusal', text: '' };
        else part = block.part;
        blocks.set(event.index, part);
        response.parts.push(part);
        break;
      }
      case 'text_delta':
      case 'reasoning_delta':
      case 'refusal_delta': {
        const part = blocks.get(event.index);
        if (part && (part.type === 'text' || part.type === 'reasoning' || part.type === 'refusal')) part.text += event.text;
        break;
      }
      case 'reasoning_opaque': {
        const part = blocks.get(event.index);
        if (part?.type === 'reasoning') part[event.field] = event.value;
        break;
      }
      case 'tool_args_delta': {
        const part = blocks.get(event.index);
        if (part?.type === 'tool_call') part.argumentsJson += event.json;
        break;
      }
      case 'block_end':
        break;
      case 'usage':
        response.usage = event.usage;
        break;
      case 'finish':
        response.finish = event.finish;
        break;
      case 'error':
        response.error = event.error;
        break;
    }
  }
  return response;
}
