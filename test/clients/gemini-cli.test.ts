/**
 * Gemini CLI (`gemini -p`, default tools) on every Gemini model with `-m`, and without `-m` (its own
 * default model and router): a plain prompt, and a prompt naming its `read_file` tool, whose real
 * output (the file's content) the final answer quotes. `--yolo` lets the tool run without the
 * confirmation a headless run cannot give.
 */
import { check, withRecorder, type CellName } from './support/cell';
import { binary, geminiCliEnv } from './support/clis';
import { runProcess } from './support/run-process';
import { familyModels, suite } from './support/suite';
import { createWorkspace, type Workspace } from './support/workspace';

const CELL_TIMEOUT_MS = 120_000;
const DEFAULT_MODEL = '(default, no -m)';

async function runGemini(cell: CellName, prompt: string, extraArgs: string[], expect: (stdout: string, workspace: Workspace) => void): Promise<void> {
  const workspace = createWorkspace();
  try {
    await withRecorder(cell, async (recorder) => {
      const modelArgs = cell.model === DEFAULT_MODEL ? [] : ['-m', cell.model];
      const result = await runProcess(binary('gemini'), ['-p', prompt, ...modelArgs, ...extraArgs], {
        cwd: workspace.work, env: geminiCliEnv(workspace, recorder.url, suite().key), timeoutMs: CELL_TIMEOUT_MS,
      });
      const output = `exit ${result.code ?? result.signal}${result.timedOut ? ' (timed out)' : ''}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
      check(!result.timedOut && result.code === 0, 'gemini -p did not finish successfully', output);
      expect(result.stdout, workspace);
    });
  } finally {
    workspace.remove();
  }
}

describe('Gemini CLI', () => {
  const models = [...familyModels('generate-content', 'google').map((model) => model.id), DEFAULT_MODEL];
  for (const model of models) {
    test.concurrent(`Gemini CLI · generate-content · ${model} · plain`, async () => {
      await runGemini({ client: 'Gemini CLI', protocol: 'generate-content', model, kind: 'plain' }, 'Reply to ping-8830 please', [], (stdout) => {
        check(stdout.includes('ping-8830'), 'the answer does not carry the prompt back', stdout);
      });
    }, CELL_TIMEOUT_MS + 30_000);

    test.concurrent(`Gemini CLI · generate-content · ${model} · tool (read_file)`, async () => {
      await runGemini({ client: 'Gemini CLI', protocol: 'generate-content', model, kind: 'tool (read_file)' }, 'Use read_file on the example file', ['--yolo'], (stdout, workspace) => {
        check(stdout.includes(workspace.fileContent), `the final answer does not quote the file content ${workspace.fileContent}`, stdout);
      });
    }, CELL_TIMEOUT_MS + 30_000);
  }
});
