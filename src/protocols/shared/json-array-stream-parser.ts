/**
 * Incremental parser for a streamed JSON array (`[{…},{…}]`, Generate-Content without `alt=sse`):
 * yields each top-level element as soon as its closing brace arrives. Input may split anywhere.
 */
export class JsonArrayStreamParser {
  private buffer = '';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private elementStart = -1;
  private scanned = 0;

  push(chunk: string): unknown[] {
    this.buffer += chunk;
    const out: unknown[] = [];
    for (let i = this.scanned; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === '\\') this.escaped = true;
        else if (c === '"') this.inString = false;
        continue;
      }
      if (c === '"') {
        this.inString = true;
        continue;
      }
      if (c === '{' || c === '[') {
        if (this.depth === 1 && this.elementStart < 0) this.elementStart = i;
        this.depth++;
      } else if (c === '}' || c === ']') {
        this.depth--;
        if (this.depth === 1 && this.elementStart >= 0) {
          out.push(JSON.parse(this.buffer.slice(this.elementStart, i + 1)));
          this.elementStart = -1;
        }
      }
    }
    if (this.elementStart < 0) {
      this.buffer = '';
      this.scanned = 0;
    } else {
      this.buffer = this.buffer.slice(this.elementStart);
      this.scanned = this.buffer.length;
      this.elementStart = 0;
    }
    return out;
  }

  /** True when the closing `]` of the array has been seen. */
  get complete(): boolean {
    return this.depth === 0 && !this.inString;
  }
}
