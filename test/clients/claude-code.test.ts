/**
 * Claude Code (`claude -p`, default tools) on every family the Messages protocol allows: a plain
 * prompt, and a prompt that makes it run its own Bash tool, whose real output the final answer quotes.
 * Only Bash is pre-approved (`--allowedTools Bash`): a headless run cannot answer a permission prompt.
 */
import { check, withRecorder, type CellName } from './support/cell';
import { binary, claudeCodeEnv } from './support/clis';
import { runProcess } from './support/run-process';
import { representatives, suite } from './support/suite';
import { createWorkspace } from './support/workspace';

const CELL_TIMEOUT_MS = 120_000;

async function runClaude(cell: CellName, prompt: string, extraArgs: string[], expect: (output: string, workspace: ReturnType<typeof createWorkspace>) => void): Promise<void> {
  const workspace = createWorkspace();
  try {
    await withRecorder(cell, async (recorder) => {
      const result = await runProcess(binary('claude'), ['-p', prompt, '--model', cell.model, ...extraArgs], {
        cwd: workspace.work, env: claudeCodeEnv(workspace, recorder.url, suite().key), timeoutMs: CELL_TIMEOUT_MS,
      });
      const output = `exit ${result.code ?? result.signal}${result.timedOut ? ' (timed out)' : ''}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
      check(!result.timedOut && result.code === 0, 'claude -p did not finish successfully', output);
      expect(result.stdout, workspace);
    });
  } finally {
    workspace.remove();
  }
}

describe('Claude Code', () => {
  for (const model of representatives('messages')) {
    test.concurrent(`Claude Code · messages · ${model.id} · plain`, async () => {
      const cell = { client: 'Claude Code', protocol: 'messages', model: model.id, kind: 'plain' };
      await runClaude(cell, 'Reply to ping-7361 please', [], (stdout) => {
        check(stdout.includes('ping-7361'), 'the answer does not carry the prompt back', stdout);
      });
    }, CELL_TIMEOUT_MS + 30_000);

    test.concurrent(`Claude Code · messages · ${model.id} · tool (Bash)`, async () => {
      const cell = { client: 'Claude Code', protocol: 'messages', model: model.id, kind: 'tool (Bash)' };
      await runClaude(cell, 'Use Bash to run the example command', ['--allowedTools', 'Bash'], (stdout, workspace) => {
        check(stdout.includes(workspace.commandOutput), `the final answer does not quote the Bash output ${workspace.commandOutput}`, stdout);
      });
    }, CELL_TIMEOUT_MS + 30_000);
  }
});
