/**
 * Where each microsecond of a request goes (issue 24): a sampled per-request trace of wall and CPU
 * time by phase, summed in process for the bench (`GATEWAY_TRACE_SAMPLE`, 0 = off, the default).
 *
 * Off, there is no tracer: `beginTrace` and `markTrace` are a branch on `undefined` (no clock read,
 * no allocation). On, one request in N carries a trace on its locals; each mark reads the wall clock
 * and `process.cpuUsage()`. That CPU is the whole process's: with requests in flight side by side a
 * phase's CPU includes the others' work, so the breakdown is exact one request at a time.
 * A phase is marked once (the first time): a failover's second attempt counts in the phases after it.
 */
import type { ServerResponse } from 'node:http';

/** What the trace reads, injectable so a test can count the reads. */
export interface TraceClock {
  wallMicros(): number;
  cpuMicros(): number;
}

export const PROCESS_CLOCK: TraceClock = {
  wallMicros: () => performance.now() * 1000,
  cpuMicros: () => {
    const usage = process.cpuUsage();
    return usage.user + usage.system;
  },
};

interface Trace {
  tracer: Tracer;
  phases: string[];
  wall: number[];
  cpu: number[];
  /** Recorded once the response closed (log and metrics done) and the handler ended (settled or failed). */
  closed: boolean;
  ended: boolean;
}

/** The phase times of one sequence of phases (a non-streamed answer and a stream mark them in different orders). */
interface Sequence {
  phases: string[];
  count: number;
  wall: number[][];
  cpu: number[][];
}

export interface PhaseFigures {
  phase: string;
  wallMicrosMean: number;
  wallMicrosP50: number;
  cpuMicrosMean: number;
  cpuMicrosP50: number;
}
export interface TraceSummary {
  sample: number;
  traces: number;
  sequences: Array<{ phases: string[]; count: number; breakdown: PhaseFigures[] }>;
  last?: Array<{ phase: string; wallMicros: number; cpuMicros: number }>;
}

/** Traces kept per sequence for the medians; beyond it only the count grows. */
const KEPT = 20_000;

export class Tracer {
  private seen = 0;
  private sequences = new Map<string, Sequence>();
  private last?: Trace;

  constructor(
    readonly sample: number,
    private readonly clock: TraceClock = PROCESS_CLOCK,
  ) {}

  begin(res: ServerResponse): void {
    if (this.seen++ % this.sample !== 0) return;
    const trace: Trace = {
      tracer: this,
      phases: ['start'],
      wall: [this.clock.wallMicros()],
      cpu: [this.clock.cpuMicros()],
      closed: false,
      ended: false,
    };
    (res as ServerResponse & { trace?: Trace }).trace = trace;
    // After every 'close' listener (the access log and metrics among them) has run.
    res.once('close', () => process.nextTick(endTrace, res));
  }

  mark(trace: Trace, phase: string): void {
    if (trace.phases.includes(phase)) return;
    trace.phases.push(phase);
    trace.wall.push(this.clock.wallMicros());
    trace.cpu.push(this.clock.cpuMicros());
  }

  record(trace: Trace): void {
    this.last = trace;
    const key = trace.phases.join(' ');
    let sequence = this.sequences.get(key);
    if (!sequence) {
      sequence = {
        phases: trace.phases.slice(1),
        count: 0,
        wall: trace.phases.slice(1).map(() => []),
        cpu: trace.phases.slice(1).map(() => []),
      };
      this.sequences.set(key, sequence);
    }
    sequence.count++;
    if (sequence.count > KEPT) return;
    for (let i = 1; i < trace.phases.length; i++) {
      sequence.wall[i - 1].push(trace.wall[i] - trace.wall[i - 1]);
      sequence.cpu[i - 1].push(trace.cpu[i] - trace.cpu[i - 1]);
    }
  }

  reset(): void {
    this.sequences.clear();
    this.last = undefined;
  }

  summary(): TraceSummary {
    const sequences = [...this.sequences.values()]
      .sort((a, b) => b.count - a.count)
      .map((s) => ({
        phases: s.phases,
        count: s.count,
        breakdown: s.phases.map((phase, i) => ({
          phase,
          wallMicrosMean: mean(s.wall[i]),
          wallMicrosP50: median(s.wall[i]),
          cpuMicrosMean: mean(s.cpu[i]),
          cpuMicrosP50: median(s.cpu[i]),
        })),
      }));
    const last = this.last;
    return {
      sample: this.sample,
      traces: sequences.reduce((sum, s) => sum + s.count, 0),
      sequences,
      last: last?.phases.slice(1).map((phase, i) => ({
        phase,
        wallMicros: round(last.wall[i + 1] - last.wall[i]),
        cpuMicros: round(last.cpu[i + 1] - last.cpu[i]),
      })),
    };
  }
}

/** A tracer when `sample` > 0 (one request in `sample`), else none: the marks then cost one branch. */
export function createTracer(sample: number, clock: TraceClock = PROCESS_CLOCK): Tracer | undefined {
  return sample > 0 ? new Tracer(sample, clock) : undefined;
}

export function beginTrace(tracer: Tracer | undefined, res: ServerResponse): void {
  if (tracer !== undefined) tracer.begin(res);
}

export function markTrace(res: ServerResponse, phase: string): void {
  const trace = (res as ServerResponse & { trace?: Trace }).trace;
  if (trace !== undefined) trace.tracer.mark(trace, phase);
}

/**
 * The handler's last mark: 'settled' (its settle or release round trip is done; a stream settles
 * after its last byte) or 'failed' (its error was rendered).
 */
export function endHandlerTrace(res: ServerResponse, phase: 'settled' | 'failed'): void {
  const trace = (res as ServerResponse & { trace?: Trace }).trace;
  if (trace === undefined || trace.ended) return;
  trace.tracer.mark(trace, phase);
  trace.ended = true;
  if (trace.closed) trace.tracer.record(trace);
}

/** 'logged': the response closed and its access log and metrics are done. */
function endTrace(res: ServerResponse): void {
  const trace = (res as ServerResponse & { trace?: Trace }).trace;
  if (trace === undefined) return;
  trace.tracer.mark(trace, 'logged');
  trace.closed = true;
  if (trace.ended) trace.tracer.record(trace);
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

function mean(values: number[]): number {
  return values.length === 0 ? 0 : round(values.reduce((sum, v) => sum + v, 0) / values.length);
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.floor(sorted.length / 2)]);
}
