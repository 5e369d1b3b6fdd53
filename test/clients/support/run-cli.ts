/**
 * One CLI cell: a fresh workspace, the recorder in front of the gateway, the outside sink as the only
 * proxy, the CLI run headless under a hard time limit, then the cell's own expectation on its output.
 */
import { check, withRecorder, type CellName } from './cell';
import type { Recorder } from './recorder';
import { isNativePassThrough } from './native';
import { proxyEnv, startOutsideSink } from './outside-sink';
import { runProcess } from './run-process';
import { createWorkspace, type Workspace } from './workspace';

export const CLI_TIMEOUT_MS = 120_000;
/** The jest timeout of a CLI cell: the run's own limit plus setup and teardown. */
export const CLI_TEST_TIMEOUT_MS = CLI_TIMEOUT_MS + 30_000;

/** What a cell checks: the last run's stdout, its workspace, its recorder, and every run's stderr (progress, such as "context compacted"). */
export type Expectation = (stdout: string, workspace: Workspace, recorder: Recorder, stderr: string) => void;

export interface CliRun {
  command: string;
  args: string[];
  /** Further runs in the same workspace (a session resumed), each after the previous one succeeded. */
  followUps?: string[][];
  /** The client's configuration for this workspace, pointed at `gatewayUrl` (files it writes included). */
  env(workspace: Workspace, gatewayUrl: string): Record<string, string>;
  expect: Expectation;
}

export async function runCliCell(cell: CellName, run: CliRun): Promise<void> {
  const workspace = createWorkspace();
  const sink = await startOutsideSink();
  try {
    await withRecorder(cell, async (recorder) => {
      const env = { ...run.env(workspace, recorder.url), ...proxyEnv(sink) };
      let stdout = '';
      let stderr = '';
      for (const args of [run.args, ...(run.followUps ?? [])]) {
        const result = await runProcess(run.command, args, { cwd: workspace.work, env, timeoutMs: CLI_TIMEOUT_MS });
        const output = `exit ${result.code ?? result.signal}${result.timedOut ? ' (timed out)' : ''}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
        check(!result.timedOut && result.code === 0, `${run.command.split('/').pop()} did not finish successfully`, output);
        check(sink.attempts.length === 0, `the client tried to reach more than the gateway: ${sink.attempts.join(', ')}`, output);
        stdout = result.stdout;
        stderr += result.stderr;
      }
      run.expect(stdout, workspace, recorder, stderr);
      if (isNativePassThrough(cell.protocol, cell.model)) {
        check(
          recorder.warnings().length === 0,
          `a native pass-through reported translation warnings: ${recorder.warnings().join('; ')}`,
          stdout,
        );
      }
    });
  } finally {
    await sink.close();
    workspace.remove();
  }
}

/**
 * The runner of one CLI: its command, the flags that select a cell's model (none for the CLI's own
 * default), and its configuration for a workspace, the gateway URL and the model.
 */
export function cliRunner(
  command: string,
  modelFlags: (model: string) => string[],
  env: (workspace: Workspace, gatewayUrl: string, model: string) => Record<string, string>,
): (cell: CellName, args: string[], expect: Expectation, followUps?: string[][]) => Promise<void> {
  return (cell, args, expect, followUps) =>
    runCliCell(cell, {
      command,
      args: [...args, ...modelFlags(cell.model)],
      env: (workspace, gatewayUrl) => env(workspace, gatewayUrl, cell.model),
      expect,
      ...(followUps ? { followUps: followUps.map((more) => [...more, ...modelFlags(cell.model)]) } : {}),
    });
}
