/**
 * Gemini CLI (`gemini -p`, default tools) on every Gemini model with `-m`, and without `-m` (its own
 * default model and router): a plain prompt, a streamed run (`-o stream-json`: the deltas carry the
 * answer, usage reported), and a prompt naming its `read_file` tool, whose real output (the file's
 * content) the final answer quotes. `--yolo` lets the tool run without the
 * confirmation a headless run cannot give.
 */
import { check, type CellName } from './support/cell';
import { binary, geminiCliEnv } from './support/clis';
import { CLI_TEST_TIMEOUT_MS, cliRunner } from './support/run-cli';
import { familyModels, suite } from './support/suite';

const DEFAULT_MODEL = '(default, no -m)';

/** Reads `-o stream-json` lines: the assistant's deltas and the result's token counts. */
function summariseStream(stdout: string): { deltas: string[]; inputTokens: number; outputTokens: number } {
  const summary = { deltas: [] as string[], inputTokens: 0, outputTokens: 0 };
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const event = JSON.parse(line) as {
      type?: string;
      role?: string;
      content?: string;
      delta?: boolean;
      stats?: { input_tokens?: number; output_tokens?: number };
    };
    if (event.type === 'message' && event.role === 'assistant' && event.delta === true) summary.deltas.push(event.content ?? '');
    if (event.type === 'result') {
      summary.inputTokens = event.stats?.input_tokens ?? 0;
      summary.outputTokens = event.stats?.output_tokens ?? 0;
    }
  }
  return summary;
}

const runGemini = cliRunner(
  binary('gemini'),
  (model) => (model === DEFAULT_MODEL ? [] : ['-m', model]),
  (workspace, gatewayUrl) => geminiCliEnv(workspace, gatewayUrl, suite().key),
);

describe('Gemini CLI', () => {
  const models = [...familyModels('generate-content', 'google').map((model) => model.id), DEFAULT_MODEL];
  for (const model of models) {
    const cell = (kind: string): CellName => ({ client: 'Gemini CLI', protocol: 'generate-content', model, kind });

    test.concurrent(
      `Gemini CLI · generate-content · ${model} · plain`,
      async () => {
        await runGemini(cell('plain'), ['-p', 'Reply to ping-8830 please'], (stdout) => {
          check(stdout.includes('ping-8830'), 'the answer does not carry the prompt back', stdout);
        });
      },
      CLI_TEST_TIMEOUT_MS,
    );

    test.concurrent(
      `Gemini CLI · generate-content · ${model} · streaming`,
      async () => {
        await runGemini(cell('streaming'), ['-p', 'Stream back pong-3302 in pieces', '-o', 'stream-json'], (stdout) => {
          const stream = summariseStream(stdout);
          check(
            stream.deltas.length > 1 && stream.deltas.join('').includes('pong-3302'),
            `the deltas ${JSON.stringify(stream.deltas.slice(-5))} do not carry the answer`,
            stdout,
          );
          check(
            stream.inputTokens > 0 && stream.outputTokens > 0,
            `usage not reported: input ${stream.inputTokens}, output ${stream.outputTokens}`,
            stdout,
          );
        });
      },
      CLI_TEST_TIMEOUT_MS,
    );

    test.concurrent(
      `Gemini CLI · generate-content · ${model} · tool (read_file)`,
      async () => {
        await runGemini(cell('tool (read_file)'), ['-p', 'Use read_file on the example file', '--yolo'], (stdout, workspace) => {
          check(
            stdout.includes(workspace.fileContent),
            `the final answer does not quote the file content ${workspace.fileContent}`,
            stdout,
          );
        });
      },
      CLI_TEST_TIMEOUT_MS,
    );
  }
});
