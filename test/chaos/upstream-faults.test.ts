/**
 * Chaos: upstreams failing every way the simulator can fail (scripts/provider-sim/faults.ts: 429, 500,
 * 503, 529, hang, slow first byte, cut stream, error event), in every protocol, streamed and not.
 * Every answer is a valid one of its protocol (no 500, the right envelope); failures cost nothing.
 */
import { FAULT_MODES } from '../../scripts/provider-sim/faults';
import { sleep, startChaosWorld, type ChaosWorld } from './chaos-harness';
import {
  CALLS,
  ledgerFigures,
  newTally,
  PROTOCOLS,
  printFigures,
  record,
  settledFigures,
  streamedCall,
  UPSTREAM_FOR,
} from './chaos-figures';
import { probe } from '../fuzz/http-probe';

jest.setTimeout(180_000);

describe('chaos: upstreams failing every way the simulator can fail', () => {
  let world: ChaosWorld;
  beforeAll(async () => {
    world = await startChaosWorld({
      env: { UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '700', UPSTREAM_IDLE_TIMEOUT_MS: '700', UPSTREAM_COOLDOWN_MS: '1' },
      groups: FAULT_MODES.flatMap((mode) =>
        PROTOCOLS.map((protocol) => ({ name: `${mode}-${protocol}`, prefix: `/_fault/${mode}`, ...UPSTREAM_FOR[protocol] })),
      ),
    });
  });
  afterAll(async () => {
    await world?.close();
  });

  it("answers each fault in the caller's envelope, never a 500, and bills only delivered answers", async () => {
    const before = await ledgerFigures(world.db, world.accountId);
    const tally = newTally();
    const byFault: Record<string, Record<number, number>> = {};
    let completed = 0;
    await Promise.all(
      FAULT_MODES.map(async (mode) => {
        for (const protocol of PROTOCOLS) {
          for (const stream of [false, true]) {
            const key = world.groupKeys[`${mode}-${protocol}`]!;
            const sent = stream ? streamedCall(protocol, key) : CALLS[protocol](key);
            const startedAt = Date.now();
            const answer = await probe(world.api.url, sent);
            record(tally, protocol, answer, Date.now() - startedAt);
            (byFault[mode] ??= {})[answer.status] = (byFault[mode]![answer.status] ?? 0) + 1;
            if (answer.status === 200) completed++;
          }
        }
      }),
    );
    await sleep(2_000);
    const after = await settledFigures(world.db, world.accountId);
    printFigures('upstream-faults', {
      requests: tally.requests,
      byStatus: tally.byStatus,
      byFault,
      answered200: completed,
      walletDrop: before.balance - after.balance,
      usageRows: after.usageRows - before.usageRows,
      usageCredits: after.usageCredits - before.usageCredits,
    });
    expect(tally.broken).toEqual([]);
    expect(before.balance - after.balance).toBe(after.usageCredits - before.usageCredits);
    // A 200 whose stream was cut or ended in an error event may still be billed for what it delivered; never more rows than 200s.
    expect(after.usageRows - before.usageRows).toBeLessThanOrEqual(completed);
  });
});
