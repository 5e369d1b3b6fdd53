/**
 * One CLI cell: a fresh workspace, the recorder in front of the gateway, the outside sink as the only
 * proxy, the CLI run headless under a hard time limit, then the cell's own expectation on its output.
 */
import { check, withRecorder, type CellName } from './cell';
import { isNativePassThrough } from './native';
import { proxyEnv, startOutsideSink } from './outside-sink';
import { runProcess } from './run-process';
import { createWorkspace, type Workspace } from './workspace';

export const CLI_TIMEOUT_MS = 120_000;
/** The jest timeout of a CLI cell: the run's own limit plus setup and teardown. */
export const CLI_TEST_TIMEOUT_MS = CLI_TIMEOUT_MS + 30_000;

export type Expectation = (stdout: string, workspace: Workspace) => void;

export interface CliRun {
  command: string;
  args: string[];
  /** The client's configuration for this workspace, pointed at `gatewayUrl` (files it writes included). */
  env(workspace: Workspace, gatewayUrl: string): Record<string, string>;
  expect: Expectation;
}

export async function runCliCell(cell: CellName, run: CliRun): Promise<void> {
  const workspace = createWorkspace();
  const sink = await startOutsideSink();
  try {
    await withRecorder(cell, async (recorder) => {
      const result = await runProcess(run.command, run.args, {
        cwd: workspace.work, env: { ...run.env(workspace, recorder.url), ...proxyEnv(sink) }, timeoutMs: CLI_TIMEOUT_MS,
      });
      const output = `exit ${result.code ?? result.signal}${result.timedOut ? ' (timed out)' : ''}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
      check(!result.timedOut && result.code === 0, `${run.command.split('/').pop()} did not finish successfully`, output);
      check(sink.attempts.length === 0, `the client tried to reach more than the gateway: ${sink.attempts.join(', ')}`, output);
      run.expect(result.stdout, workspace);
      if (isNativePassThrough(cell.protocol, cell.model)) {
        check(recorder.warnings().length === 0, `a native pass-through reported translation warnings: ${recorder.warnings().join('; ')}`, output);
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
): (cell: CellName, args: string[], expect: Expectation) => Promise<void> {
  return (cell, args, expect) => runCliCell(cell, {
    command, args: [...args, ...modelFlags(cell.model)], env: (workspace, gatewayUrl) => env(workspace, gatewayUrl, cell.model), expect,
  });
}
