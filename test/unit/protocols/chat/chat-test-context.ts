/** Deterministic ids and clock for codec tests, and the capture folder beside the project. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CodecContext, UpstreamDecodeContext } from '../../../../src/protocols/codec';

export const NOW = 1_760_000_000;

export function testContext(toolNames: Record<string, string> = {}): UpstreamDecodeContext & CodecContext {
  let counter = 0;
  return {
    newId: (prefix: string) => `${prefix}test${++counter}`,
    now: () => NOW,
    toolNames,
  };
}

/** `<repo>/../shared/captures/chat`, or undefined when the folder is absent (the tests then skip). */
export function chatCaptureDir(): string | undefined {
  const dir = path.resolve(__dirname, '..', '..', '..', '..', '..', 'shared', 'captures', 'chat');
  return fs.existsSync(dir) ? dir : undefined;
}

/** Replays a `*.chunks.txt` capture as the provider sent it (captures README: `data:` lines, then `[DONE]`). */
export function captureToSse(chunksText: string): string {
  const lines = chunksText.split('\n').filter((line) => line.trim() !== '');
  return lines.map((line) => `data: ${line}\n\n`).join('') + 'data: [DONE]\n\n';
}

/** Deterministic pseudo-random split points, so a failure is reproducible. */
export function splitAtRandomOffsets(text: string, seed: number, pieces: number): string[] {
  let state = seed >>> 0;
  const random = (): number => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const cuts = new Set<number>();
  while (cuts.size < Math.min(pieces - 1, text.length - 1)) cuts.add(1 + Math.floor(random() * (text.length - 1)));
  const sorted = [...cuts].sort((a, b) => a - b);
  const out: string[] = [];
  let start = 0;
  for (const cut of sorted) {
    out.push(text.slice(start, cut));
    start = cut;
  }
  out.push(text.slice(start));
  return out;
}
