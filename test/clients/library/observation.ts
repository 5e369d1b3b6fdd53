/**
 * What a library cell saw, reported by the child process that ran it (the libraries are ES modules
 * and run under tsx, apart from jest) and judged by the test file.
 */
export type LibraryKind = 'plain' | 'streaming' | 'tool' | 'structured' | 'vision';
export const LIBRARY_KINDS: LibraryKind[] = ['plain', 'streaming', 'tool', 'structured', 'vision'];

export interface Observation {
  text?: string;
  deltas?: string[];
  inputTokens?: number;
  outputTokens?: number;
  toolCalls?: number;
  object?: unknown;
  /** A thrown error: its HTTP status when the library kept one, and its message. */
  error?: { status?: number; message: string };
}

/** One library cell group: a library variant on one model, one gateway URL (recorder) per kind. */
export interface CellGroupSpec {
  variant: string;
  model: string;
  key: string;
  urls: Record<LibraryKind, string>;
}

/** The prompts, tool and schema every library cell uses; the simulator answers them deterministically. */
export const PROMPTS = {
  plain: 'Reply to ping-2719 please',
  plainToken: 'ping-2719',
  /** The explicit output cap of the plain cell (the other cells leave each library's default). */
  maxOutputTokens: 1000,
  streaming: 'Stream back pong-4403 in pieces',
  streamingToken: 'pong-4403',
  tool: 'Call lookup_code for the key',
  toolName: 'lookup_code',
  toolOutput: 'code-90210-from-the-tool',
  structured: 'Give the weather as JSON',
  vision: 'What is in this picture?',
} as const;

/** A 1×1 PNG (the simulator checks that image bytes are their media type). */
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export function errorObservation(error: unknown): Observation {
  const found = findStatus(error);
  return { error: { ...(found !== undefined ? { status: found } : {}), message: error instanceof Error ? error.message : String(error) } };
}

/** Libraries keep the status under different names, sometimes on a wrapped cause (AI SDK retries). */
function findStatus(error: unknown, depth = 0): number | undefined {
  if (typeof error !== 'object' || error === null || depth > 4) return undefined;
  const record = error as Record<string, unknown>;
  for (const name of ['statusCode', 'status']) {
    if (typeof record[name] === 'number') return record[name] as number;
  }
  const response = record.response as Record<string, unknown> | undefined;
  if (typeof response?.status === 'number') return response.status;
  return findStatus(record.lastError ?? record.cause, depth + 1);
}
