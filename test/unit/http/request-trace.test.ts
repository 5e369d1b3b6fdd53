/**
 * Issue 24, "where each microsecond goes": the per-request trace costs nothing when off (no clock
 * read, nothing attached to the response) and, sampled 1 in N, traces exactly those requests.
 */
import { ServerResponse, IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { beginTrace, createTracer, endHandlerTrace, markTrace, type TraceClock } from '../../../src/http/request-trace';

const PHASES = [
  'read',
  'authenticated',
  'decoded',
  'admitted',
  'routed',
  'prepared',
  'upstream',
  'received',
  'translated',
  'settled',
  'written',
];

function countingClock(): TraceClock & { reads: number } {
  let now = 0;
  const clock = {
    reads: 0,
    wallMicros: () => {
      clock.reads++;
      return (now += 10);
    },
    cpuMicros: () => {
      clock.reads++;
      return now * 2;
    },
  };
  return clock;
}

/** One request's whole life as the handler marks it; returns the response. */
async function serveOne(tracer: ReturnType<typeof createTracer>): Promise<ServerResponse> {
  const res = new ServerResponse(new IncomingMessage(new Socket()));
  beginTrace(tracer, res);
  for (const phase of PHASES) markTrace(res, phase);
  endHandlerTrace(res, 'settled');
  res.emit('close');
  await new Promise((resolve) => process.nextTick(resolve)); // the 'logged' mark
  return res;
}

describe('request trace', () => {
  it('costs nothing when off: no tracer, no clock read, nothing attached to the response', async () => {
    const clock = countingClock();
    const tracer = createTracer(0, clock);
    expect(tracer).toBeUndefined();
    for (let i = 0; i < 1000; i++) {
      const res = await serveOne(tracer);
      expect(Object.keys(res)).not.toContain('trace');
      expect(res.listenerCount('close')).toBe(0);
    }
    expect(clock.reads).toBe(0);
  });

  it('sampled 1 in 4, traces one request in 4 and reads the clocks only for those', async () => {
    const clock = countingClock();
    const tracer = createTracer(4, clock)!;
    const served: ServerResponse[] = [];
    for (let i = 0; i < 8; i++) served.push(await serveOne(tracer));
    expect(served.filter((res) => 'trace' in res)).toHaveLength(2);
    // start + the phases + 'logged', each a wall and a CPU read, for 2 requests.
    expect(clock.reads).toBe(2 * 2 * (PHASES.length + 2));
    const summary = tracer.summary();
    expect(summary.traces).toBe(2);
    expect(summary.sequences[0].phases).toEqual([...PHASES, 'logged']);
    expect(summary.sequences[0].breakdown.every((p) => p.wallMicrosP50 === 10 && p.cpuMicrosP50 === 20)).toBe(true);
    tracer.reset();
    expect(tracer.summary().traces).toBe(0);
  });

  it('records a trace only once the handler ended and the response closed, in either order', async () => {
    const tracer = createTracer(1, countingClock())!;
    const res = new ServerResponse(new IncomingMessage(new Socket()));
    beginTrace(tracer, res);
    markTrace(res, 'written');
    res.emit('close');
    await new Promise((resolve) => process.nextTick(resolve));
    expect(tracer.summary().traces).toBe(0);
    endHandlerTrace(res, 'settled');
    expect(tracer.summary().sequences.map((s) => s.phases)).toEqual([['written', 'logged', 'settled']]);
  });
});
