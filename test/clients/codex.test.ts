/**
 * Codex (`codex exec`, default tools and sandbox) on every family the Responses protocol allows: a
 * plain prompt, a streamed run read through `--json` (Codex shows no deltas; the recorder checks every
 * event of its stream, and the turn must report usage), and a prompt naming its `exec_command` tool,
 * whose real output the final answer quotes. `codex exec` needs no permission flag for this: its default read-only sandbox and
 * `never` approval let a read-only command run.
 */
import { check, type CellName } from './support/cell';
import { binary, codexEnv } from './support/clis';
import { CLI_TEST_TIMEOUT_MS, cliRunner } from './support/run-cli';
import { representatives, suite } from './support/suite';

/** Codex's own default model (no `model =` line); issue 12 wants it served too. */
const DEFAULT_MODEL = '(default model)';

// The model is a line of config.toml, not a flag.
const runCodex = cliRunner(
  binary('codex'),
  () => [],
  (workspace, gatewayUrl, model) => codexEnv(workspace, gatewayUrl, suite().key, model === DEFAULT_MODEL ? undefined : model),
);

describe('Codex', () => {
  for (const model of [...representatives('responses').map((entry) => entry.id), DEFAULT_MODEL]) {
    const cell = (kind: string): CellName => ({ client: 'Codex', protocol: 'responses', model, kind });

    test.concurrent(
      `Codex · responses · ${model} · plain`,
      async () => {
        await runCodex(cell('plain'), ['exec', 'Reply to ping-5521 please'], (stdout) => {
          check(stdout.includes('ping-5521'), 'the final message does not carry the prompt back', stdout);
        });
      },
      CLI_TEST_TIMEOUT_MS,
    );
  }

  for (const model of representatives('responses')) {
    const cell = (kind: string): CellName => ({ client: 'Codex', protocol: 'responses', model: model.id, kind });
    test.concurrent(
      `Codex · responses · ${model.id} · streaming (--json)`,
      async () => {
        await runCodex(cell('streaming (--json)'), ['exec', '--json', 'Stream back pong-7745 in pieces'], (stdout) => {
          const events = stdout
            .split('\n')
            .filter((line) => line.startsWith('{'))
            .map(
              (line) =>
                JSON.parse(line) as {
                  type?: string;
                  item?: { type?: string; text?: string };
                  usage?: { input_tokens?: number; output_tokens?: number };
                },
            );
          const answer = events.find((event) => event.type === 'item.completed' && event.item?.type === 'agent_message');
          check(answer?.item?.text?.includes('pong-7745') === true, 'no agent message carrying the prompt back', stdout);
          const usage = events.find((event) => event.type === 'turn.completed')?.usage;
          check((usage?.input_tokens ?? 0) > 0 && (usage?.output_tokens ?? 0) > 0, `usage not reported: ${JSON.stringify(usage)}`, stdout);
        });
      },
      CLI_TEST_TIMEOUT_MS,
    );
    test.concurrent(
      `Codex · responses · ${model.id} · tool (exec_command)`,
      async () => {
        await runCodex(cell('tool (exec_command)'), ['exec', 'Run exec_command to look around'], (stdout, workspace) => {
          check(
            stdout.includes(workspace.commandOutput),
            `the final message does not quote the command output ${workspace.commandOutput}`,
            stdout,
          );
        });
      },
      CLI_TEST_TIMEOUT_MS,
    );
  }

  // On its default model Codex offers one freeform `exec` tool (JavaScript that calls the other tools)
  // instead of exec_command. The simulator fills a freeform input with "example", which Codex evaluates:
  // the real output is JavaScript's ReferenceError, which the final message must quote.
  test.concurrent(
    `Codex · responses · ${DEFAULT_MODEL} · tool (exec)`,
    async () => {
      const cell: CellName = { client: 'Codex', protocol: 'responses', model: DEFAULT_MODEL, kind: 'tool (exec)' };
      await runCodex(cell, ['exec', 'Use exec to look around'], (stdout) => {
        check(
          /example'? is not defined/.test(stdout),
          'the final message does not quote the output of exec (example is not defined)',
          stdout,
        );
      });
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
