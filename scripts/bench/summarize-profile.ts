/**
 * Summarizes a V8 `.cpuprofile` (from `BENCH_CPU_PROFILE=1 npm run bench` or `node --cpu-prof`):
 * the top functions by self time and by inclusive time, and self time grouped by package or source
 * folder. `npx tsx scripts/bench/summarize-profile.ts bench-results/<file>.cpuprofile [top] [skipSeconds] [untilSeconds]`;
 * only the samples between `skipSeconds` and `untilSeconds` from the profile's start count (e.g. one scenario).
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function label(frame: CallFrame): string {
  const file = frame.url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, 'nm:')
    .replace(/^.*\/work\/main\//, '');
  return `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
}

function area(frame: CallFrame): string {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return `nm:${nm[1]}`;
  if (url.startsWith('node:')) return url.split('/')[0].replace(/^(node:[^/]+).*/, '$1');
  const src = /\/(?:dist\/)?((?:src|scripts|workers)\/[^/]+)\/[^/]+\.[jt]s$/.exec(url);
  return src ? src[1] : url;
}

function main(): void {
  const [file, topArg, skipArg, untilArg] = process.argv.slice(2);
  if (!file) throw new Error('usage: summarize-profile <file.cpuprofile> [top]');
  const top = Number(topArg ?? 40);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const skipMicros = Number(skipArg ?? 0) * 1e6;
  const untilMicros = untilArg === undefined ? Infinity : Number(untilArg) * 1e6;
  const selfTime = new Map<number, number>();
  let elapsed = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    elapsed += delta;
    if (elapsed >= skipMicros && elapsed < untilMicros) selfTime.set(id, (selfTime.get(id) ?? 0) + delta);
  });
  const total = [...selfTime.values()].reduce((sum, value) => sum + value, 0);

  const selfByLabel = new Map<string, number>();
  const inclusiveByLabel = new Map<string, number>();
  const selfByArea = new Map<string, number>();
  for (const [id, time] of selfTime) {
    const node = byId.get(id)!;
    selfByLabel.set(label(node.callFrame), (selfByLabel.get(label(node.callFrame)) ?? 0) + time);
    selfByArea.set(area(node.callFrame), (selfByArea.get(area(node.callFrame)) ?? 0) + time);
    // Inclusive: every distinct function on the sample's stack, counted once per stack.
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const name = label(byId.get(current)!.callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusiveByLabel.set(name, (inclusiveByLabel.get(name) ?? 0) + time);
    }
  }
  const print = (title: string, map: Map<string, number>, count: number) => {
    console.log(`\n${title}`);
    for (const [name, time] of [...map].sort((a, b) => b[1] - a[1]).slice(0, count)) {
      console.log(`${((time / total) * 100).toFixed(1).padStart(6)}%  ${(time / 1000).toFixed(0).padStart(7)} ms  ${name}`);
    }
  };
  console.log(`${file}: ${(total / 1e6).toFixed(2)} s sampled, ${profile.samples.length} samples`);
  print('self time by area', selfByArea, top);
  print('self time by function', selfByLabel, top);
  print('inclusive time by function', inclusiveByLabel, top);
}

main();
