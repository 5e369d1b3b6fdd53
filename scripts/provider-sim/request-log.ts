/** What the simulator received, readable by tests (`Simulator.requests`, `GET /_sim/requests`). */
export type SimProtocol = 'messages' | 'chat' | 'responses' | 'generate-content' | 'images' | 'video' | 'unknown';

export interface SimRequestLog {
  id: number;
  method: string;
  /** Path with query, after the `/_fault` and `/_latency` prefixes are stripped. */
  path: string;
  /** The path exactly as received, prefixes included. */
  rawPath: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** Parsed JSON body, or a summary `{fields, files}` for multipart, or null. */
  body: unknown;
  protocol: SimProtocol;
  model: string | null;
  stream: boolean;
  /** The fault applied, if any. */
  fault: string | null;
  /** The latency applied: time to first token and delay between chunks, in ms. */
  latency: { ttftMs: number; chunkDelayMs: number };
  /** The status answered, set once the status line is known. */
  status: number | null;
  /** The client went away before the answer finished. */
  aborted: boolean;
  completed: boolean;
  startedAt: number;
}

/**
 * The live log array plus a cap: past `limit` entries, the oldest half is dropped in one splice
 * (amortised O(1) per request, so benchmarks can run for long).
 */
export class RequestLog {
  readonly entries: SimRequestLog[] = [];
  private nextId = 1;

  constructor(private readonly limit: number) {}

  nextRequestId(): number {
    return this.nextId++;
  }

  add(entry: SimRequestLog): void {
    this.entries.push(entry);
    if (this.entries.length > this.limit * 2) this.entries.splice(0, this.entries.length - this.limit);
  }

  clear(): void {
    // Cleared in place: tests may hold a reference to `entries`.
    this.entries.length = 0;
  }
}
