/**
 * One cell of the matrix: a client, a protocol, a model and what is tried. Its failure message names
 * all four and the first non-2xx answer or malformed event the recorder saw, with the client's output.
 */
import { startRecorder, type Recorder } from './recorder';
import { suite } from './suite';

export interface CellName {
  client: string;
  protocol: string;
  model: string;
  kind: string;
}

export const cellTitle = (cell: CellName): string => `${cell.client} · ${cell.protocol} · ${cell.model} · ${cell.kind}`;

/** The failure of a cell: what went wrong, then the first bad answer and the requests of the cell's own recorder. */
export function cellFailure(cell: CellName, reason: string, seen: { firstProblem?: string; requests: string }): Error {
  return new Error(
    `${cellTitle(cell)} failed: ${reason}\n  first bad answer: ${seen.firstProblem ?? 'every answer was 2xx and every event well-formed'}\n  requests: ${seen.requests}`,
  );
}

/** Runs `body` with a recorder in front of the gateway; a thrown failure is rethrown with the cell's evidence. */
export async function withRecorder<T>(cell: CellName, body: (recorder: Recorder) => Promise<T>): Promise<T> {
  const recorder = await startRecorder(suite().url);
  try {
    return await body(recorder);
  } catch (error) {
    throw cellFailure(cell, (error as Error).message, { firstProblem: recorder.firstProblem(), requests: recorder.requestList() });
  } finally {
    await recorder.close();
  }
}

/** Throws with `detail` when `condition` is false (the detail carries the client's own output). */
export function check(condition: boolean, what: string, detail: string): void {
  if (!condition) throw new Error(`${what}\n  client output: ${detail.slice(-3_000)}`);
}
