/**
 * Runs one library cell group (a library variant on one model) in a child process, each kind behind
 * its own recorder, and memoises the outcome so the five kind tests of a group share one run.
 */
import path from 'node:path';
import { startRecorder, type Recorder } from '../support/recorder';
import { runProcess } from '../support/run-process';
import { suite } from '../support/suite';
import { LIBRARY_KINDS, type LibraryKind, type Observation } from './observation';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const GROUP_TIMEOUT_MS = 150_000;

export interface KindOutcome {
  observation?: Observation;
  /** The first non-2xx answer or malformed event of this kind's own requests. */
  firstProblem?: string;
  requests: string;
  /** The gateway's `x-gateway-warnings` headers on this kind's requests. */
  warnings: string[];
  /** Why no observation came back (the child crashed or timed out). */
  crash?: string;
}

const groups = new Map<string, Promise<Record<LibraryKind, KindOutcome>>>();

export function libraryGroup(variant: string, model: string): Promise<Record<LibraryKind, KindOutcome>> {
  const id = `${variant}|${model}`;
  let group = groups.get(id);
  if (group === undefined) {
    group = runGroup(variant, model);
    groups.set(id, group);
  }
  return group;
}

async function runGroup(variant: string, model: string): Promise<Record<LibraryKind, KindOutcome>> {
  const recorders = {} as Record<LibraryKind, Recorder>;
  for (const kind of LIBRARY_KINDS) recorders[kind] = await startRecorder(suite().url);
  try {
    const urls = Object.fromEntries(LIBRARY_KINDS.map((kind) => [kind, recorders[kind].url]));
    const spec = JSON.stringify({ variant, model, key: suite().key, urls });
    const result = await runProcess(process.execPath, ['--import', 'tsx', path.join(__dirname, 'run-cells.ts'), spec], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_ENV: 'test' },
      timeoutMs: GROUP_TIMEOUT_MS,
    });
    const line = result.stdout.split('\n').find((candidate) => candidate.startsWith('RESULTS '));
    const observations =
      line === undefined ? undefined : (JSON.parse(line.slice('RESULTS '.length)) as Partial<Record<LibraryKind, Observation>>);
    const crash =
      line === undefined
        ? `the library child ${result.timedOut ? 'timed out' : `exited ${result.code ?? result.signal}`}: ${result.stderr.slice(-2_000)}`
        : undefined;
    const outcomes = {} as Record<LibraryKind, KindOutcome>;
    for (const kind of LIBRARY_KINDS) {
      outcomes[kind] = {
        observation: observations?.[kind],
        firstProblem: recorders[kind].firstProblem(),
        requests: recorders[kind].requestList(),
        warnings: recorders[kind].warnings(),
        crash,
      };
    }
    return outcomes;
  } finally {
    await Promise.all(LIBRARY_KINDS.map((kind) => recorders[kind].close()));
  }
}
