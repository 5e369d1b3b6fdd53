/**
 * Rebuilds a tool call's arguments from streamed `functionCall.partialArgs` (each piece addressed by
 * an RFC 9535 JSON path such as `$.location` or `$.items[0].name`; a string may arrive in several
 * pieces, `willContinue` marking all but the last).
 */
import type { GenerateContentPartialArg } from './generate-content-response-schema';

type PathKey = string | number;

export class GenerateContentPartialArguments {
  private readonly root: Record<string, unknown> = {};

  constructor(initial?: Record<string, unknown> | null) {
    if (initial) Object.assign(this.root, initial);
  }

  apply(piece: GenerateContentPartialArg): void {
    const path = parseJsonPath(piece.jsonPath ?? '');
    if (path === undefined || path.length === 0) return;
    if (piece.stringValue != null) {
      const existing = this.get(path);
      this.set(path, typeof existing === 'string' ? existing + piece.stringValue : piece.stringValue);
    } else if (piece.numberValue != null) this.set(path, piece.numberValue);
    else if (piece.boolValue != null) this.set(path, piece.boolValue);
    else if (piece.nullValue !== undefined) this.set(path, null);
  }

  merge(args: Record<string, unknown>): void {
    Object.assign(this.root, args);
  }

  toJson(): string {
    return JSON.stringify(this.root);
  }

  private get(path: PathKey[]): unknown {
    let node: unknown = this.root;
    for (const key of path) {
      if (node === null || typeof node !== 'object') return undefined;
      node = (node as Record<string | number, unknown>)[key];
    }
    return node;
  }

  private set(path: PathKey[], value: unknown): void {
    let node: Record<string | number, unknown> = this.root;
    for (let i = 0; i < path.length - 1; i++) {
      const key = path[i];
      let child = node[key];
      if (child === null || typeof child !== 'object') {
        child = typeof path[i + 1] === 'number' ? [] : {};
        node[key] = child;
      }
      node = child as Record<string | number, unknown>;
    }
    node[path[path.length - 1]] = value;
  }
}

/** `$.a.b[0]['c d']` → ['a', 'b', 0, 'c d']; undefined when the path is not one we understand. */
export function parseJsonPath(path: string): PathKey[] | undefined {
  if (!path.startsWith('$')) return undefined;
  const keys: PathKey[] = [];
  const pattern = /\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y;
  pattern.lastIndex = 1;
  while (pattern.lastIndex < path.length) {
    const match = pattern.exec(path);
    if (!match) return undefined;
    if (match[1] !== undefined) keys.push(match[1]);
    else if (match[2] !== undefined) keys.push(Number(match[2]));
    else keys.push((match[3] ?? match[4]).replace(/\\(.)/g, '$1'));
  }
  return keys;
}
