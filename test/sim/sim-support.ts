/** Helpers for the simulator's own tests: raw HTTP calls, SSE reading, SDK clients, a small PNG. */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { encodePng } from '../../scripts/provider-sim/images/png';
import type { Simulator } from '../../scripts/provider-sim/server';

export const KEY = 'sim-key';
export const ANTHROPIC_HEADERS = { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' };
export const OPENAI_HEADERS = { authorization: `Bearer ${KEY}` };
export const GOOGLE_HEADERS = { 'x-goog-api-key': KEY };

export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export async function post(sim: Simulator, path: string, body: unknown, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const response = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return answerOf(response);
}

export async function get(sim: Simulator, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return answerOf(await fetch(`${sim.url}${path}`, { headers }));
}

async function answerOf(response: Response): Promise<RawAnswer> {
  const text = await response.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export interface SseEvent {
  event: string | null;
  data: string;
}

/** Splits an SSE body into its events (the simulator writes `\n\n`-separated frames). */
export function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      let event: string | null = null;
      const data: string[] = [];
      for (const line of frame.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      return { event, data: data.join('\n') };
    });
}

export function anthropic(sim: Simulator, baseURL = sim.url): Anthropic {
  return new Anthropic({ apiKey: KEY, baseURL, maxRetries: 0, logLevel: 'error' });
}

export function openai(sim: Simulator, baseURL = `${sim.url}/v1`): OpenAI {
  return new OpenAI({ apiKey: KEY, baseURL, maxRetries: 0 });
}

export function genai(sim: Simulator, baseUrl = sim.url): GoogleGenAI {
  return new GoogleGenAI({ apiKey: KEY, apiVersion: 'v1beta', httpOptions: { baseUrl, fetch: globalThis.fetch } });
}

/** A real 2x2 PNG, base64. */
export const PNG_BASE64 = encodePng(2, 2, [200, 30, 30]).toString('base64');

/** A minimal JPEG header, enough for media-type sniffing. */
export const JPEG_BASE64 = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]).toString('base64');

/** `{error: …}` of an OpenAI or Google envelope, or the Messages envelope itself. */
export function errorOf(answer: RawAnswer): Record<string, unknown> {
  const json = answer.json as { error?: Record<string, unknown> } | null;
  if (json === null || json.error === undefined) throw new Error(`not an error envelope: ${answer.text}`);
  return json.error;
}

export function lastRequest(sim: Simulator): Simulator['requests'][number] {
  const entry = sim.requests[sim.requests.length - 1];
  if (entry === undefined) throw new Error('no request logged');
  return entry;
}
