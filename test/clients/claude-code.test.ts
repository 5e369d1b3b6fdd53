/**
 * Claude Code (`claude -p`, default tools) on every family the Messages protocol allows: a plain
 * prompt, a streamed run (`--output-format stream-json`: the text deltas join to the result, usage
 * reported), and a prompt that makes it run its own Bash tool, whose real output the final answer
 * quotes. Only Bash is pre-approved (`--allowedTools Bash`): a headless run cannot answer a
 * permission prompt, and pre-approving one tool keeps the default tool set and permission mode.
 */
import { check, type CellName } from './support/cell';
import { binary, claudeCodeEnv } from './support/clis';
import { CLI_TEST_TIMEOUT_MS, cliRunner } from './support/run-cli';
import { representatives, suite } from './support/suite';

/** The CLI's own default model (what a user gets without `--model`); issue 12 wants it served too. */
const DEFAULT_MODEL = '(default, no --model)';

const runClaude = cliRunner(
  binary('claude'),
  (model) => (model === DEFAULT_MODEL ? [] : ['--model', model]),
  (workspace, gatewayUrl) => claudeCodeEnv(workspace, gatewayUrl, suite().key),
);

interface StreamSummary { deltas: string[]; result?: string; inputTokens: number; outputTokens: number }

/** Reads `--output-format stream-json --include-partial-messages` lines: text deltas, the result and its usage. */
function summariseStream(stdout: string): StreamSummary {
  const summary: StreamSummary = { deltas: [], inputTokens: 0, outputTokens: 0 };
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const event = JSON.parse(line) as { type?: string; event?: { type?: string; delta?: { type?: string; text?: string } }; result?: string; usage?: { input_tokens?: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number; output_tokens?: number } };
    if (event.type === 'stream_event' && event.event?.type === 'content_block_delta' && event.event.delta?.type === 'text_delta') summary.deltas.push(event.event.delta.text ?? '');
    if (event.type === 'result') {
      summary.result = event.result;
      // Messages counts cache writes and reads apart from input_tokens; a native Claude Code prompt is mostly cache.
      summary.inputTokens = (event.usage?.input_tokens ?? 0) + (event.usage?.cache_creation_input_tokens ?? 0) + (event.usage?.cache_read_input_tokens ?? 0);
      summary.outputTokens = event.usage?.output_tokens ?? 0;
    }
  }
  return summary;
}

describe('Claude Code', () => {
  for (const model of representatives('messages')) {
    const cell = (kind: string): CellName => ({ client: 'Claude Code', protocol: 'messages', model: model.id, kind });

    test.concurrent(`Claude Code · messages · ${model.id} · plain`, async () => {
      await runClaude(cell('plain'), ['-p', 'Reply to ping-7361 please'], (stdout) => {
        check(stdout.includes('ping-7361'), 'the answer does not carry the prompt back', stdout);
      });
    }, CLI_TEST_TIMEOUT_MS);

    test.concurrent(`Claude Code · messages · ${model.id} · streaming`, async () => {
      await runClaude(cell('streaming'), ['-p', 'Stream back pong-1187 in pieces', '--output-format', 'stream-json', '--verbose', '--include-partial-messages'], (stdout) => {
        const stream = summariseStream(stdout);
        check(stream.result !== undefined && stream.result.includes('pong-1187'), 'no result carrying the prompt back', stdout);
        check(stream.deltas.length > 1 && stream.deltas.join('') === stream.result, `the text deltas ${JSON.stringify(stream.deltas)} do not join to the result`, stdout);
        check(stream.inputTokens > 0 && stream.outputTokens > 0, `usage not reported: input ${stream.inputTokens}, output ${stream.outputTokens}`, stdout);
      });
    }, CLI_TEST_TIMEOUT_MS);

    test.concurrent(`Claude Code · messages · ${model.id} · tool (Bash)`, async () => {
      await runClaude(cell('tool (Bash)'), ['-p', 'Use Bash to run the example command', '--allowedTools', 'Bash'], (stdout, workspace) => {
        check(stdout.includes(workspace.commandOutput), `the final answer does not quote the Bash output ${workspace.commandOutput}`, stdout);
      });
    }, CLI_TEST_TIMEOUT_MS);

    test.concurrent(`Claude Code · messages · ${model.id} · tool (Read)`, async () => {
      await runClaude(cell('tool (Read)'), ['-p', 'Use Read to show the example file'], (stdout, workspace) => {
        check(stdout.includes(workspace.fileContent), `the final answer does not quote the file content ${workspace.fileContent}`, stdout);
      });
    }, CLI_TEST_TIMEOUT_MS);
  }

  const defaultCell = (kind: string): CellName => ({ client: 'Claude Code', protocol: 'messages', model: DEFAULT_MODEL, kind });
  test.concurrent(`Claude Code · messages · ${DEFAULT_MODEL} · plain`, async () => {
    await runClaude(defaultCell('plain'), ['-p', 'Reply to ping-6064 please'], (stdout) => {
      check(stdout.includes('ping-6064'), 'the answer does not carry the prompt back', stdout);
    });
  }, CLI_TEST_TIMEOUT_MS);

  test.concurrent(`Claude Code · messages · ${DEFAULT_MODEL} · tool (Bash)`, async () => {
    await runClaude(defaultCell('tool (Bash)'), ['-p', 'Use Bash to run the example command', '--allowedTools', 'Bash'], (stdout, workspace) => {
      check(stdout.includes(workspace.commandOutput), `the final answer does not quote the Bash output ${workspace.commandOutput}`, stdout);
    });
  }, CLI_TEST_TIMEOUT_MS);
});
