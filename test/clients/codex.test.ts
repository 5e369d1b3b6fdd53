/**
 * Codex (`codex exec`, default tools and sandbox) on every family the Responses protocol allows: a
 * plain prompt, and a prompt naming its `exec_command` tool, whose real output the final answer
 * quotes. `codex exec` needs no permission flag for this: its default read-only sandbox and
 * `never` approval let a read-only command run.
 */
import { check, withRecorder, type CellName } from './support/cell';
import { binary, codexEnv } from './support/clis';
import { runProcess } from './support/run-process';
import { representatives, suite } from './support/suite';
import { createWorkspace, type Workspace } from './support/workspace';

const CELL_TIMEOUT_MS = 120_000;

async function runCodex(cell: CellName, prompt: string, expect: (stdout: string, workspace: Workspace) => void): Promise<void> {
  const workspace = createWorkspace();
  try {
    await withRecorder(cell, async (recorder) => {
      const result = await runProcess(binary('codex'), ['exec', prompt], {
        cwd: workspace.work, env: codexEnv(workspace, recorder.url, suite().key, cell.model), timeoutMs: CELL_TIMEOUT_MS,
      });
      const output = `exit ${result.code ?? result.signal}${result.timedOut ? ' (timed out)' : ''}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
      check(!result.timedOut && result.code === 0, 'codex exec did not finish successfully', output);
      expect(result.stdout, workspace);
    });
  } finally {
    workspace.remove();
  }
}

describe('Codex', () => {
  for (const model of representatives('responses')) {
    test.concurrent(`Codex · responses · ${model.id} · plain`, async () => {
      await runCodex({ client: 'Codex', protocol: 'responses', model: model.id, kind: 'plain' }, 'Reply to ping-5521 please', (stdout) => {
        check(stdout.includes('ping-5521'), 'the final message does not carry the prompt back', stdout);
      });
    }, CELL_TIMEOUT_MS + 30_000);

    test.concurrent(`Codex · responses · ${model.id} · tool (exec_command)`, async () => {
      await runCodex({ client: 'Codex', protocol: 'responses', model: model.id, kind: 'tool (exec_command)' }, 'Run exec_command to look around', (stdout, workspace) => {
        check(stdout.includes(workspace.commandOutput), `the final message does not quote the command output ${workspace.commandOutput}`, stdout);
      });
    }, CELL_TIMEOUT_MS + 30_000);
  }
});
