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

export class CellFailure extends Error {}

/** Runs `body` with a recorder in front of the gateway; a thrown failure is rethrown with the cell's evidence. */
export async function withRecorder<T>(cell: CellName, body: (recorder: Recorder) => Promise<T>): Promise<T> {
  const recorder = await startRecorder(suite().url);
  try {
    return await body(recorder);
  } catch (error) {
    const problem = recorder.firstProblem() ?? 'every answer was 2xx and every event well-formed';
    throw new CellFailure(`${cellTitle(cell)} failed: ${(error as Error).message}\n  first bad answer: ${problem}\n  requests: ${recorder.exchanges.map((e) => `${e.method} ${e.path} ${e.status}`).join(', ')}`);
  } finally {
    await recorder.close();
  }
}

/** Throws with `detail` when `condition` is false (the detail carries the client's own output). */
export function check(condition: boolean, what: string, detail: string): void {
  if (!condition) throw new Error(`${what}\n  client output: ${detail.slice(-3_000)}`);
}
