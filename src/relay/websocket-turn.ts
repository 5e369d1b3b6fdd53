/**
 * One `response.create` of a Responses WebSocket, served by the same pipeline as a POST: the
 * pipeline writes on this object as on node's response (status, headers, SSE text), and each event
 * it writes leaves as one text frame; an error answer (status >= 400) leaves as one `error` event.
 * Writes complete when the socket took the frame, so a slow client holds the stream back as over HTTP.
 */
import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { SseParser } from '../protocols/shared/sse-parser';
import { parseJson } from '../protocols/shared/read-json';
import { errorEvent } from '../protocols/responses/websocket-events';

export type SendFrame = (text: string, done: (error?: Error) => void) => void;

export class WebSocketTurn extends Writable {
  statusCode = 200;
  headersSent = false;
  private readonly headers = new Map<string, number | string | readonly string[]>();
  private readonly parser = new SseParser();
  private errorText = '';

  constructor(
    private readonly sendFrame: SendFrame,
    private readonly onFrame: (text: string) => void,
  ) {
    super({ decodeStrings: false });
  }

  /** The pipeline's view of this turn: node's response API, as far as the pipeline uses it. */
  asResponse(): ServerResponse {
    return this as unknown as ServerResponse;
  }

  setHeader(name: string, value: number | string | readonly string[]): this {
    this.headers.set(name.toLowerCase(), value);
    return this;
  }

  getHeader(name: string): number | string | readonly string[] | undefined {
    return this.headers.get(name.toLowerCase());
  }

  hasHeader(name: string): boolean {
    return this.headers.has(name.toLowerCase());
  }

  removeHeader(name: string): void {
    this.headers.delete(name.toLowerCase());
  }

  getHeaders(): Record<string, number | string | readonly string[]> {
    return Object.fromEntries(this.headers);
  }

  writeHead(status: number, headers?: Record<string, number | string | readonly string[]>): this {
    this.statusCode = status;
    for (const [name, value] of Object.entries(headers ?? {})) this.setHeader(name, value);
    return this;
  }

  flushHeaders(): void {
    this.headersSent = true;
  }

  override _write(chunk: string | Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.headersSent = true;
    const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    if (this.statusCode >= 400) {
      this.errorText += text;
      callback();
      return;
    }
    const frames = this.parser
      .push(text)
      .map((event) => event.data)
      .filter((data) => data !== '' && data !== '[DONE]');
    this.sendAll(frames, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.statusCode < 400) {
      callback();
      return;
    }
    this.sendAll([errorEvent(this.statusCode, parseJson(this.errorText) ?? this.errorText)], callback);
  }

  private sendAll(frames: string[], callback: (error?: Error | null) => void): void {
    let index = 0;
    const next = (error?: Error): void => {
      if (error || index >= frames.length) {
        callback(error);
        return;
      }
      const frame = frames[index++]!;
      this.onFrame(frame);
      this.sendFrame(frame, next);
    };
    next();
  }
}
