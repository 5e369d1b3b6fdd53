/** A Responses WebSocket client for tests: it queues every text frame and awaits frames by predicate. */
import WebSocket from 'ws';

export type Frame = Record<string, any>;

/** A client socket that queues every text frame it receives. */
export class WebSocketClient {
  readonly frames: Frame[] = [];
  private waiters: Array<() => void> = [];
  closed: { code: number; reason: string } | undefined;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.frames.push(JSON.parse(data.toString()) as Frame);
      this.wake();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
  }

  static open(url: string, headers: Record<string, string>): Promise<WebSocketClient> {
    const ws = new WebSocket(url, { headers });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new WebSocketClient(ws)));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on('end', () => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, body })));
      });
      ws.once('error', reject);
    });
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Waits until a frame matching `done` arrives (or the socket closes); returns the frames since `from`. */
  async until(done: (frame: Frame) => boolean, from = this.frames.length): Promise<Frame[]> {
    for (;;) {
      const index = this.frames.slice(from).findIndex(done);
      if (index >= 0) return this.frames.slice(from, from + index + 1);
      if (this.closed) throw new Error(`socket closed (${this.closed.code} ${this.closed.reason}) before the awaited frame`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  async turn(message: Record<string, unknown>): Promise<Frame[]> {
    const from = this.frames.length;
    this.ws.send(JSON.stringify({ type: 'response.create', ...message }));
    return this.until((frame) => frame.type === 'response.completed' || frame.type === 'error' || frame.type === 'response.failed', from);
  }

  async closedWith(): Promise<{ code: number; reason: string }> {
    while (!this.closed) await new Promise<void>((resolve) => this.waiters.push(resolve));
    return this.closed;
  }
}
