/**
 * The recorded provider traffic in `../shared/captures` (beside the checkout, not part of it), read
 * and replayed exactly as its README says, for the cross-cutting capture suites in `test/captures`.
 * Every capture is named `<folder>/<file>` and, for a chunks file holding several recorded streams
 * back to back (Responses tool loops), `<folder>/<file>#<n>`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Protocol } from '../../src/ir/protocol';

/** `<repo>/../shared/captures`. */
export const CAPTURES_ROOT = path.resolve(__dirname, '..', '..', '..', 'shared', 'captures');

/** The capture folder of each wire protocol. */
export const CAPTURE_FOLDERS: Record<Protocol, string> = {
  messages: 'messages',
  responses: 'responses',
  chat: 'chat',
  'generate-content': 'generate-content',
};

/** Whether the captures are there; when not, each suite says so (console.warn) and skips. */
export function capturesPresent(suite: string): boolean {
  const present = fs.existsSync(CAPTURES_ROOT);
  if (!present) console.warn(`${suite}: skipped, ${CAPTURES_ROOT} is absent (real provider captures live beside the checkout)`);
  return present;
}

/** One recorded stream, as its SSE replay. */
export interface StreamCapture {
  protocol: Protocol;
  /** `<folder>/<file>` or `<folder>/<file>#<n>`. */
  label: string;
  /** The file name without `.chunks.txt`: a non-streamed twin has the same name with `.json`. */
  name: string;
  /** Position of this stream in its file (0 for single-stream files). */
  position: number;
  /** The JSON lines of this stream, repaired where noted in {@link KNOWN_TRUNCATED_LINES}. */
  lines: string[];
  /** The bytes a client of the provider received, rebuilt per the README. */
  sse: string;
}

/** One recorded non-streamed body. */
export interface BodyCapture {
  protocol: Protocol;
  label: string;
  name: string;
  /** The file's exact text. */
  text: string;
  body: unknown;
}

/**
 * Lines of the captures that lost their final `}` when they were recorded (a defect of the file,
 * not of the provider: the `.json` twin of the same answer is complete). Only these are repaired;
 * any other unparsable line fails the suite.
 */
const KNOWN_TRUNCATED_LINES = new Set([
  'responses/parallel-tool-call-wrapper.1.chunks.txt:0',
  'responses/parallel-tool-call-wrapper.1.chunks.txt:5',
]);

function folderPath(protocol: Protocol): string {
  return path.join(CAPTURES_ROOT, CAPTURE_FOLDERS[protocol]);
}

function filesOf(protocol: Protocol, suffix: string): string[] {
  const dir = folderPath(protocol);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith(suffix))
    .sort();
}

/** Every `.chunks.txt` and `.json` file of the four protocol folders, as `<folder>/<file>`. */
export function allCaptureFiles(protocols: readonly Protocol[]): string[] {
  return protocols.flatMap((protocol) =>
    [...filesOf(protocol, '.chunks.txt'), ...filesOf(protocol, '.json')].map((file) => `${CAPTURE_FOLDERS[protocol]}/${file}`),
  );
}

function readLines(protocol: Protocol, file: string): string[] {
  const text = fs.readFileSync(path.join(folderPath(protocol), file), 'utf8');
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return lines.map((line, index) => {
    try {
      JSON.parse(line);
      return line;
    } catch (error) {
      if (!KNOWN_TRUNCATED_LINES.has(`${CAPTURE_FOLDERS[protocol]}/${file}:${index}`)) throw error;
      return `${line}}`;
    }
  });
}

function eventType(line: string): string {
  const parsed = JSON.parse(line) as { type?: unknown };
  return typeof parsed.type === 'string' ? parsed.type : '';
}

/** The README's replay rule of each folder. */
export function replayAsSse(protocol: Protocol, lines: readonly string[]): string {
  switch (protocol) {
    case 'messages':
    case 'responses':
      return lines.map((line) => `event: ${eventType(line)}\ndata: ${line}\n\n`).join('');
    case 'chat':
      return `${lines.map((line) => `data: ${line}\n\n`).join('')}data: [DONE]\n\n`;
    case 'generate-content':
      return lines.map((line) => `data: ${line}\n\n`).join('');
  }
}

/** A Responses file may hold several streams (a tool loop): each starts at `response.created`. */
function splitStreams(protocol: Protocol, lines: string[]): string[][] {
  if (protocol !== 'responses') return [lines];
  const streams: string[][] = [];
  for (const line of lines) {
    if (streams.length === 0 || eventType(line) === 'response.created') streams.push([]);
    streams[streams.length - 1].push(line);
  }
  return streams;
}

export function streamCaptures(protocol: Protocol): StreamCapture[] {
  return filesOf(protocol, '.chunks.txt').flatMap((file) => {
    const name = file.slice(0, -'.chunks.txt'.length);
    const streams = splitStreams(protocol, readLines(protocol, file));
    return streams.map((lines, position) => ({
      protocol,
      label: `${CAPTURE_FOLDERS[protocol]}/${file}${streams.length > 1 ? `#${position}` : ''}`,
      name,
      position,
      lines,
      sse: replayAsSse(protocol, lines),
    }));
  });
}

export function bodyCaptures(protocol: Protocol): BodyCapture[] {
  return filesOf(protocol, '.json').map((file) => {
    const text = fs.readFileSync(path.join(folderPath(protocol), file), 'utf8');
    return {
      protocol,
      label: `${CAPTURE_FOLDERS[protocol]}/${file}`,
      name: file.slice(0, -'.json'.length),
      text,
      body: JSON.parse(text) as unknown,
    };
  });
}

/** The raw text of one capture file, e.g. `readCaptureText('responses', 'openai-error.1.json')`. */
export function readCaptureText(protocol: Protocol, file: string): string {
  return fs.readFileSync(path.join(folderPath(protocol), file), 'utf8');
}
