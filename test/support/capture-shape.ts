/**
 * The shape of a wire answer, values aside, for calibrating the provider simulator against the
 * captures: the sequence of event types of a stream (consecutive repeats collapsed, keepalive
 * `ping`s dropped) and the set of key paths of each event type (`message.usage.output_tokens`,
 * arrays as `[]`). Ids, texts, numbers and other values never count; nor do the keys inside
 * subtrees whose keys are content rather than protocol (tool arguments, JSON schemas, metadata).
 */
import type { Protocol } from '../../src/ir/protocol';
import { SseParser } from '../../src/protocols/shared/sse-parser';

export interface WireShape {
  /** Event (or chunk) kinds in order, consecutive repeats collapsed. */
  sequence: string[];
  /** Per event kind, every key path seen, sorted. */
  fields: Record<string, string[]>;
}

/** Subtrees whose keys are the caller's content (argument names, schema properties), not the protocol's. */
const CONTENT_KEYS = new Set(['args', 'input', 'parameters', 'metadata', 'properties', 'input_schema', 'schema']);

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export function keyPaths(value: unknown, prefix = '', into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) keyPaths(item, `${prefix}[]`, into);
    return into;
  }
  const object = record(value);
  if (object === undefined) return into;
  for (const [key, child] of Object.entries(object)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    into.add(path);
    if (!CONTENT_KEYS.has(key)) keyPaths(child, path, into);
  }
  return into;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** What one event or chunk is, in the protocol's own terms. */
export function eventKind(protocol: Protocol, payload: unknown): string {
  const event = record(payload) ?? {};
  switch (protocol) {
    case 'messages': {
      const type = text(event.type);
      if (type === 'content_block_start') return `${type}:${text(record(event.content_block)?.type)}`;
      if (type === 'content_block_delta') return `${type}:${text(record(event.delta)?.type)}`;
      return type;
    }
    case 'responses': {
      const type = text(event.type);
      if (type.startsWith('response.output_item.')) return `${type}:${text(record(event.item)?.type)}`;
      if (type.startsWith('response.content_part.')) return `${type}:${text(record(event.part)?.type)}`;
      return type;
    }
    case 'chat': {
      const choices = Array.isArray(event.choices) ? event.choices : [];
      const features: string[] = [];
      for (const entry of choices) {
        const choice = record(entry) ?? {};
        const delta = record(choice.delta) ?? {};
        if (delta.role !== undefined) features.push('role');
        if (text(delta.reasoning_content) !== '') features.push('reasoning');
        if (text(delta.content) !== '') features.push('content');
        if (text(delta.refusal) !== '') features.push('refusal');
        for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
          const started = record(call)?.id !== undefined;
          if (started) features.push('tool_call');
          if (text(record(record(call)?.function)?.arguments) !== '') features.push('tool_arguments');
        }
        if (choice.finish_reason !== null && choice.finish_reason !== undefined) features.push('finish');
      }
      if (record(event.usage) !== undefined) features.push('usage');
      return features.join('+') || 'empty';
    }
    case 'generate-content': {
      const candidate = record((Array.isArray(event.candidates) ? event.candidates : [])[0]) ?? {};
      const parts = record(candidate.content)?.parts;
      const features: string[] = [];
      for (const entry of Array.isArray(parts) ? parts : []) {
        const part = record(entry) ?? {};
        if (part.thought === true) features.push('thought');
        else if (text(part.text) !== '') features.push('text');
        if (part.functionCall !== undefined) features.push('function_call');
        if (part.thoughtSignature !== undefined) features.push('signature');
      }
      if (candidate.finishReason !== undefined) features.push('finish');
      return features.join('+') || 'empty';
    }
  }
}

/** The JSON payloads of an SSE stream (the Chat `[DONE]` sentinel left out). */
export function ssePayloads(sse: string): unknown[] {
  const parser = new SseParser();
  return [...parser.push(sse), ...parser.end()]
    .filter((event) => event.data !== '[DONE]')
    .map((event) => JSON.parse(event.data) as unknown);
}

export function streamShape(protocol: Protocol, payloads: readonly unknown[]): WireShape {
  const sequence: string[] = [];
  const fields = new Map<string, Set<string>>();
  for (const payload of payloads) {
    const kind = eventKind(protocol, payload);
    if (kind === 'ping') continue; // keepalives may come anywhere (PROTOCOLS.md 4.1)
    if (sequence.at(-1) !== kind) sequence.push(kind);
    // Chat and Generate-Content chunks are one object type: their fields are pooled.
    const bucket = protocol === 'chat' || protocol === 'generate-content' ? 'chunk' : kind;
    keyPaths(payload, '', fields.get(bucket) ?? fields.set(bucket, new Set()).get(bucket));
  }
  return { sequence, fields: Object.fromEntries([...fields].map(([kind, paths]) => [kind, [...paths].sort()])) };
}

/** A complete body: its content kinds in order (blocks, items, parts) and its key paths. */
export function bodyShape(protocol: Protocol, body: unknown): WireShape {
  const object = record(body) ?? {};
  let kinds: string[] = [];
  switch (protocol) {
    case 'messages':
      kinds = (Array.isArray(object.content) ? object.content : []).map((block) => text(record(block)?.type));
      break;
    case 'responses':
      kinds = (Array.isArray(object.output) ? object.output : []).map((item) => text(record(item)?.type));
      break;
    case 'chat':
      kinds = [
        eventKind('chat', {
          choices: (Array.isArray(object.choices) ? object.choices : []).map((choice) => ({
            ...record(choice),
            delta: record(choice)?.message,
          })),
        }),
      ];
      break;
    case 'generate-content':
      kinds = [eventKind('generate-content', body)];
      break;
  }
  const sequence: string[] = [];
  for (const kind of kinds) if (sequence.at(-1) !== kind) sequence.push(kind);
  return { sequence, fields: { body: [...keyPaths(body)].sort() } };
}

export interface ShapeDifference {
  sequence?: { capture: string[]; simulator: string[] };
  /** Per event kind: paths only the capture has, and paths only the simulator has. */
  fields: Record<string, { onlyCapture: string[]; onlySimulator: string[] }>;
}

export function compareShapes(capture: WireShape, simulator: WireShape, ignoredPaths: ReadonlySet<string>): ShapeDifference {
  const difference: ShapeDifference = { fields: {} };
  if (JSON.stringify(capture.sequence) !== JSON.stringify(simulator.sequence))
    difference.sequence = { capture: capture.sequence, simulator: simulator.sequence };
  // Kinds only one side has are already a sequence difference; fields are compared where both have the kind.
  const kinds = Object.keys(capture.fields).filter((kind) => simulator.fields[kind] !== undefined);
  for (const kind of kinds) {
    const ours = new Set(simulator.fields[kind] ?? []);
    const theirs = new Set(capture.fields[kind] ?? []);
    const ignored = (path: string): boolean =>
      [...ignoredPaths].some((prefix) => path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[]`));
    const onlyCapture = [...theirs].filter((path) => !ours.has(path) && !ignored(path));
    const onlySimulator = [...ours].filter((path) => !theirs.has(path) && !ignored(path));
    if (onlyCapture.length > 0 || onlySimulator.length > 0) difference.fields[kind] = { onlyCapture, onlySimulator };
  }
  return difference;
}
