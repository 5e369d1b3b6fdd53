/**
 * Incremental Server-Sent Events parser (WHATWG rules): feed text split at any offset, get whole
 * events. Comment lines (`:`) are keepalives and are skipped. CRLF, LF and CR line ends are accepted.
 */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

export class SseParser {
  private buffer = '';
  private eventName: string | undefined;
  private dataLines: string[] = [];
  private id: string | undefined;
  /** Offset up to which the buffered partial line is known to hold no line end (no rescans). */
  private scanned = 0;

  push(chunk: string): SseEvent[] {
    this.buffer += chunk;
    const withCr = this.buffer.includes('\r');
    const events: SseEvent[] = [];
    let start = 0;
    for (;;) {
      const [end, next] = withCr ? this.lineEndWithCr(Math.max(start, this.scanned)) : this.lineEnd(Math.max(start, this.scanned));
      if (end < 0) break;
      this.line(this.buffer.slice(start, end), events);
      start = next;
    }
    this.buffer = this.buffer.slice(start);
    // A trailing CR may still become a CRLF: rescan it next time.
    this.scanned = this.buffer.endsWith('\r') ? this.buffer.length - 1 : this.buffer.length;
    return events;
  }

  /** The usual stream has LF line ends only: the engine finds them. `[end, start of the next line]`, or -1. */
  private lineEnd(from: number): [number, number] {
    const end = this.buffer.indexOf('\n', from);
    return [end, end + 1];
  }

  private lineEndWithCr(from: number): [number, number] {
    for (let i = from; i < this.buffer.length; i++) {
      const c = this.buffer.charCodeAt(i);
      if (c === 10) return [i, i + 1];
      if (c === 13) {
        // A CR at the very end may be the first half of a CRLF: wait for more input.
        if (i + 1 >= this.buffer.length) return [-1, -1];
        return [i, this.buffer.charCodeAt(i + 1) === 10 ? i + 2 : i + 1];
      }
    }
    return [-1, -1];
  }

  /** The stream ended: a final event without its blank line is still delivered. */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.buffer.length > 0) this.line(this.buffer.replace(/\r$/, ''), events);
    this.buffer = '';
    this.scanned = 0;
    this.line('', events);
    return events;
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === '') {
      if (this.dataLines.length > 0 || this.eventName !== undefined) {
        if (this.dataLines.length > 0) {
          events.push({ event: this.eventName, data: this.dataLines.join('\n'), id: this.id });
        }
      }
      this.eventName = undefined;
      this.dataLines = [];
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ':' comment
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    switch (field) {
      case 'event':
        this.eventName = value;
        break;
      case 'data':
        this.dataLines.push(value);
        break;
      case 'id':
        this.id = value;
        break;
      default:
        break; // `retry` and unknown fields are ignored
    }
  }
}

/** One SSE frame, with an event name when the protocol uses them. */
export function sseFrame(data: unknown, event?: string): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return event === undefined ? `data: ${payload}\n\n` : `event: ${event}\ndata: ${payload}\n\n`;
}
