/**
 * One request's time and CPU on the API by phase (issue 24), from the API's sampled trace
 * (`GATEWAY_TRACE_SAMPLE`, read at GET /internal/trace): reset before a scenario, read after it.
 */
import type { PhaseFigures, TraceSummary } from '../../src/http/request-trace';

export interface Breakdown {
  scenario: string;
  traces: number;
  phases: PhaseFigures[];
}

export async function resetTrace(apiUrl: string): Promise<void> {
  await fetch(`${apiUrl}/internal/trace`, { method: 'DELETE' });
}

/** The scenario's most common sequence of phases (the successful answers); undefined when tracing is off. */
export async function readBreakdown(apiUrl: string, scenario: string): Promise<Breakdown | undefined> {
  const response = await fetch(`${apiUrl}/internal/trace`);
  if (!response.ok) return undefined;
  const summary = (await response.json()) as TraceSummary;
  const main = summary.sequences[0];
  return main ? { scenario, traces: main.count, phases: main.breakdown } : undefined;
}

/** A markdown table per scenario: the phases in the order they happen, p50 and mean of wall and CPU. */
export function breakdownMarkdown(breakdowns: Breakdown[]): string[] {
  return breakdowns.flatMap((b) => {
    const sum = (pick: (p: PhaseFigures) => number) => Math.round(b.phases.reduce((total, p) => total + pick(p), 0));
    return [
      '',
      `**${b.scenario}** (${b.traces} traced requests; each phase ends at its mark)`,
      '',
      '| phase | wall µs p50 | API CPU µs p50 | wall µs mean | API CPU µs mean |',
      '|---|---|---|---|---|',
      ...b.phases.map((p) => `| ${p.phase} | ${p.wallMicrosP50} | ${p.cpuMicrosP50} | ${p.wallMicrosMean} | ${p.cpuMicrosMean} |`),
      `| total (sum) | ${sum((p) => p.wallMicrosP50)} | ${sum((p) => p.cpuMicrosP50)} | ${sum((p) => p.wallMicrosMean)} | ${sum((p) => p.cpuMicrosMean)} |`,
    ];
  });
}
