/**
 * Splits a `streamGenerateContent` body into chunk objects, whichever framing it uses: SSE
 * (`alt=sse`, `data: {…}` frames) or a streamed JSON array (`[{…},{…}]`), told apart by the
 * first non-blank character. Input may be split at any offset.
 */
import { JsonArrayStreamParser } from '../shared/json-array-stream-parser';
import { SseParser } from '../shared/sse-parser';

export type ReadChunk = { ok: true; value: unknown } | { ok: false; text: string };

export class GenerateContentChunkReader {
  private framing: 'unknown' | 'sse' | 'array' = 'unknown';
  private pending = '';
  private readonly sse = new SseParser();
  private readonly array = new JsonArrayStreamParser();

  push(text: string): ReadChunk[] {
    if (this.framing === 'unknown') {
      this.pending += text;
      const first = /\S/.exec(this.pending);
      if (!first) return [];
      this.framing = first[0] === '[' ? 'array' : 'sse';
      text = this.pending;
      this.pending = '';
    }
    if (this.framing === 'array') {
      try {
        return this.array.push(text).map((value) => ({ ok: true, value }));
      } catch {
        return [{ ok: false, text }];
      }
    }
    return this.sse.push(text).flatMap((event) => parseData(event.data));
  }

  end(): ReadChunk[] {
    if (this.framing !== 'sse') return [];
    return this.sse.end().flatMap((event) => parseData(event.data));
  }
}

function parseData(data: string): ReadChunk[] {
  if (data.trim() === '' || data === '[DONE]') return [];
  try {
    return [{ ok: true, value: JSON.parse(data) }];
  } catch {
    return [{ ok: false, text: data }];
  }
}
