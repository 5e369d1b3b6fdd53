/**
 * Claude Code (`claude -p`, default tools) on every family the Messages protocol allows: a plain
 * prompt, a streamed run (`--output-format stream-json`: the text deltas join to the result, usage
 * reported), and a prompt that makes it run its own Bash tool, whose real output the final answer
 * quotes. Only Bash is pre-approved (`--allowedTools Bash`): a headless run cannot answer a
 * permission prompt, and pre-approving one tool keeps the default tool set and permission mode.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_CATALOG } from '../../src/catalog/default-catalog';
import { runAdmin } from './support/admin';
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

interface StreamSummary {
  deltas: string[];
  result?: string;
  inputTokens: number;
  outputTokens: number;
}

/** Reads `--output-format stream-json --include-partial-messages` lines: text deltas, the result and its usage. */
function summariseStream(stdout: string): StreamSummary {
  const summary: StreamSummary = { deltas: [], inputTokens: 0, outputTokens: 0 };
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const event = JSON.parse(line) as {
      type?: string;
      event?: { type?: string; delta?: { type?: string; text?: string } };
      result?: string;
      usage?: { input_tokens?: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number; output_tokens?: number };
    };
    if (event.type === 'stream_event' && event.event?.type === 'content_block_delta' && event.event.delta?.type === 'text_delta')
      summary.deltas.push(event.event.delta.text ?? '');
    if (event.type === 'result') {
      summary.result = event.result;
      // Messages counts cache writes and reads apart from input_tokens; a native Claude Code prompt is mostly cache.
      summary.inputTokens =
        (event.usage?.input_tokens ?? 0) + (event.usage?.cache_creation_input_tokens ?? 0) + (event.usage?.cache_read_input_tokens ?? 0);
      summary.outputTokens = event.usage?.output_tokens ?? 0;
    }
  }
  return summary;
}

describe('Claude Code', () => {
  for (const model of representatives('messages')) {
    const cell = (kind: string): CellName => ({ client: 'Claude Code', protocol: 'messages', model: model.id, kind });

    test.concurrent(
      `Claude Code · messages · ${model.id} · plain`,
      async () => {
        await runClaude(cell('plain'), ['-p', 'Reply to ping-7361 please'], (stdout) => {
          check(stdout.includes('ping-7361'), 'the answer does not carry the prompt back', stdout);
        });
      },
      CLI_TEST_TIMEOUT_MS,
    );

    test.concurrent(
      `Claude Code · messages · ${model.id} · streaming`,
      async () => {
        await runClaude(
          cell('streaming'),
          ['-p', 'Stream back pong-1187 in pieces', '--output-format', 'stream-json', '--verbose', '--include-partial-messages'],
          (stdout) => {
            const stream = summariseStream(stdout);
            check(stream.result !== undefined && stream.result.includes('pong-1187'), 'no result carrying the prompt back', stdout);
            check(
              stream.deltas.length > 1 && stream.deltas.join('') === stream.result,
              `the text deltas ${JSON.stringify(stream.deltas)} do not join to the result`,
              stdout,
            );
            check(
              stream.inputTokens > 0 && stream.outputTokens > 0,
              `usage not reported: input ${stream.inputTokens}, output ${stream.outputTokens}`,
              stdout,
            );
          },
        );
      },
      CLI_TEST_TIMEOUT_MS,
    );

    test.concurrent(
      `Claude Code · messages · ${model.id} · tool (Bash)`,
      async () => {
        await runClaude(
          cell('tool (Bash)'),
          ['-p', 'Use Bash to run the example command', '--allowedTools', 'Bash'],
          (stdout, workspace) => {
            check(
              stdout.includes(workspace.commandOutput),
              `the final answer does not quote the Bash output ${workspace.commandOutput}`,
              stdout,
            );
          },
        );
      },
      CLI_TEST_TIMEOUT_MS,
    );

    test.concurrent(
      `Claude Code · messages · ${model.id} · tool (Read)`,
      async () => {
        await runClaude(cell('tool (Read)'), ['-p', 'Use Read to show the example file'], (stdout, workspace) => {
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

  const defaultCell = (kind: string): CellName => ({ client: 'Claude Code', protocol: 'messages', model: DEFAULT_MODEL, kind });
  test.concurrent(
    `Claude Code · messages · ${DEFAULT_MODEL} · plain`,
    async () => {
      await runClaude(defaultCell('plain'), ['-p', 'Reply to ping-6064 please'], (stdout) => {
        check(stdout.includes('ping-6064'), 'the answer does not carry the prompt back', stdout);
      });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  test.concurrent(
    `Claude Code · messages · ${DEFAULT_MODEL} · tool (Bash)`,
    async () => {
      await runClaude(
        defaultCell('tool (Bash)'),
        ['-p', 'Use Bash to run the example command', '--allowedTools', 'Bash'],
        (stdout, workspace) => {
          check(
            stdout.includes(workspace.commandOutput),
            `the final answer does not quote the Bash output ${workspace.commandOutput}`,
            stdout,
          );
        },
      );
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

/**
 * Issue 25: a long session on a small-context model of a translated family. The model's window
 * (simulator `sim-ctx-<N>-deepseek`, refused in DeepSeek's Chat wording) takes Claude Code's first
 * request; the Bash output it then reads pushes the next one over, the gateway re-issues the refusal
 * as Anthropic's "prompt is too long: N tokens > M maximum", Claude Code compacts (its compaction
 * request drops the long first message, so it fits) and the session goes on to a result. The prompt
 * carries ~2 000 tokens of notes so the window has ~1 500 tokens of margin on either side.
 * Claude Code 2.1.330 also recognises the vendors' own overflow wordings (it keeps a list of them),
 * so this cell shows the long session working end to end; the rewording itself is shown by
 * test/e2e/context-overflow.test.ts.
 */
describe('Claude Code · long session', () => {
  const MODEL = 'claude-code-small-context';
  const WINDOW = 16_900;
  const NOTES = Array.from({ length: 100 }, () => 'Background note: the quick brown fox jumps over the lazy dog near the river bank.').join(
    ' ',
  );
  /** About 4 400 tokens of output: inline in the next request (Claude Code persists far longer outputs to a file). */
  const LONG_OUTPUT = Array.from(
    { length: 250 },
    (_, index) => `echo "line ${index}: the quick brown fox jumps over the lazy dog again and again"`,
  ).join('\n');

  beforeAll(async () => {
    const base = DEFAULT_CATALOG.find((model) => model.id === 'deepseek-v3.2')!;
    await runAdmin([
      'model',
      'add',
      '--definition',
      JSON.stringify({ ...base, id: MODEL, aliases: [], upstreamModel: `sim-ctx-${WINDOW}-deepseek`, contextWindow: WINDOW }),
    ]);
    // --no-verify: the simulator's small-context models are made up from their name, so its model list cannot show them.
    await runAdmin([
      'upstream',
      'add',
      '--group',
      'default',
      '--protocol',
      'chat',
      '--base-url',
      suite().simulatorUrl,
      '--api-key',
      'sim-key',
      '--models',
      MODEL,
      '--no-verify',
    ]);
    // The API reloads its catalog on the announcement and its upstream accounts every few seconds.
    for (let attempt = 0; attempt < 40; attempt += 1) {
      const response = await fetch(`${suite().url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': suite().key, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'ready?' }] }),
      });
      if (response.ok) return;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    throw new Error(`${MODEL} never became callable`);
  }, 90_000);

  const runLongSession = cliRunner(
    binary('claude'),
    (model) => ['--model', model],
    (workspace, gatewayUrl) => {
      // The workspace's `example` command, which the simulator's Bash call runs, prints the long output.
      writeFileSync(path.join(workspace.home, 'bin', 'example'), `#!/bin/sh\n${LONG_OUTPUT}\necho ${workspace.commandOutput}\n`);
      chmodSync(path.join(workspace.home, 'bin', 'example'), 0o755);
      return claudeCodeEnv(workspace, gatewayUrl, suite().key);
    },
  );

  test(
    `Claude Code · messages · ${MODEL} · overflow compacts and the session continues`,
    async () => {
      const cell: CellName = {
        client: 'Claude Code',
        protocol: 'messages',
        model: MODEL,
        kind: 'overflow compacts and the session continues',
      };
      await runLongSession(
        cell,
        ['-p', `Use Bash to run the example command. ${NOTES}`, '--allowedTools', 'Bash', '--output-format', 'stream-json', '--verbose'],
        (stdout) => {
          const events = stdout
            .split('\n')
            .filter((line) => line.startsWith('{'))
            .map((line) => JSON.parse(line) as { type?: string; subtype?: string; is_error?: boolean });
          check(
            events.some((event) => event.type === 'system' && event.subtype === 'compact_boundary'),
            'Claude Code never compacted: the overflow did not reach it as "prompt is too long"',
            stdout,
          );
          const result = events.find((event) => event.type === 'result');
          check(result !== undefined && result.is_error === false, 'the session did not continue to a result after compacting', stdout);
        },
      );
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
