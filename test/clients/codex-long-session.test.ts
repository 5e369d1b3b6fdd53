/**
 * Codex in long sessions (issue 25), on a native and a translated model each:
 * - remote compaction forced early: Codex's built-in OpenAI provider pointed at the gateway (its
 *   remote compaction and WebSocket transport on, as for api.openai.com) with a low auto-compact
 *   token limit. The first run leaves more tokens in the session than the limit (Codex's own
 *   instructions alone do), so the resumed run compacts remotely first and then answers its prompt
 *   from the compacted history: the gateway's compaction item came back and was read in its place;
 * - the Responses WebSocket transport of a custom provider (`supports_websockets = true`): every
 *   turn goes over one upgraded connection, never over HTTP;
 * - the gateway's model catalog (`model_catalog_url`), read by Codex instead of guessed metadata.
 */
import { check, type CellName } from './support/cell';
import { binary, codexEnv, type CodexSetup } from './support/clis';
import { CLI_TEST_TIMEOUT_MS, cliRunner } from './support/run-cli';
import { suite } from './support/suite';

const MODELS = ['gpt-5', 'claude-sonnet-4-5'];

/** What the gateway puts in place of its own compaction item when it comes back (compaction.ts). */
const SUMMARY_HEADING = 'Summary of the earlier conversation (compacted)';

const runCodex = (setup: CodexSetup) =>
  cliRunner(
    binary('codex'),
    () => [],
    (workspace, gatewayUrl, model) => codexEnv(workspace, gatewayUrl, suite().key, model, setup),
  );

describe('Codex in long sessions', () => {
  for (const model of MODELS) {
    const cell = (kind: string): CellName => ({ client: 'Codex', protocol: 'responses', model, kind });

    test.concurrent(
      `Codex · responses · ${model} · remote compaction, then the session goes on`,
      async () => {
        const setup: CodexSetup = { provider: 'openai', topLines: ['model_auto_compact_token_limit = 2000'] };
        await runCodex(setup)(
          cell('remote compaction'),
          ['exec', 'Reply to ping-5521 please'],
          (stdout, _workspace, _recorder, stderr) => {
            check(stderr.includes('context compacted'), 'Codex did not compact the session', stderr);
            // The simulator echoes the last user turn: the compacted history, then the new prompt.
            check(stdout.includes(SUMMARY_HEADING), 'the turn after compaction did not carry the compaction summary', stdout);
            check(stdout.includes('pong-7745'), 'the resumed session does not answer its prompt after compaction', stdout);
          },
          [['exec', 'resume', '--last', 'Reply to pong-7745 please']],
        );
      },
      CLI_TEST_TIMEOUT_MS,
    );

    test.concurrent(
      `Codex · responses · ${model} · WebSocket transport`,
      async () => {
        const setup: CodexSetup = { providerLines: ['supports_websockets = true'] };
        await runCodex(setup)(cell('WebSocket transport'), ['exec', 'Run exec_command to look around'], (stdout, workspace, recorder) => {
          check(
            stdout.includes(workspace.commandOutput),
            `the final message does not quote the command output ${workspace.commandOutput}`,
            stdout,
          );
          const upgrades = recorder.exchanges.filter((exchange) => exchange.method === 'GET' && exchange.path.startsWith('/v1/responses'));
          check(
            upgrades.length > 0 && upgrades.every((exchange) => exchange.status === 101),
            'the turns did not go over an upgraded WebSocket',
            recorder.requestList(),
          );
          check(!recorder.exchanges.some((exchange) => exchange.method === 'POST'), 'a turn fell back to HTTP', recorder.requestList());
        });
      },
      CLI_TEST_TIMEOUT_MS,
    );
  }

  // Codex reads the gateway's model catalog (model_catalog_url): no "Model metadata … not found".
  test.concurrent(
    'Codex · responses · claude-sonnet-4-5 · model catalog from the gateway',
    async () => {
      const cell: CellName = { client: 'Codex', protocol: 'responses', model: 'claude-sonnet-4-5', kind: 'model catalog' };
      await runCodex({ gatewayCatalog: true })(cell, ['exec', 'Reply to ping-5521 please'], (stdout, _workspace, recorder, stderr) => {
        check(
          recorder.exchanges.some((exchange) => exchange.path.startsWith('/v1/models?client_version=') && exchange.status === 200),
          'Codex did not ask for the catalog',
          recorder.requestList(),
        );
        check(!stderr.includes('failed to decode models response'), 'Codex could not read the catalog', stderr);
        check(!stderr.includes('Model metadata for'), 'Codex did not find the model in the catalog', stderr);
        check(stdout.includes('ping-5521'), 'the final message does not carry the prompt back', stdout);
      });
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
