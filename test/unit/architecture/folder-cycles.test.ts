/**
 * Issue 13: no import cycle between the folders of src/ (type-only imports count too: they still tie
 * the folders' designs together), and db/ is a leaf (pool, transactions, migrations).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const SRC = path.resolve(__dirname, '..', '..', '..', 'src');
const IMPORT = /(?:import|export)\s[^'"]*?from\s+'(\.{1,2}\/[^']+)'|import\(\s*'(\.{1,2}\/[^']+)'\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

/** The top folder of src/ a file belongs to ('.' for files directly in src/). */
function folderOf(file: string): string {
  const relative = path.relative(SRC, file);
  return relative.includes(path.sep) ? relative.split(path.sep)[0]! : '.';
}

function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = path.resolve(path.dirname(file), match[1] ?? match[2]!);
      if (!target.startsWith(SRC)) continue;
      const to = folderOf(target);
      if (to !== from && to !== '.') edges.add(to);
    }
  }
  return graph;
}

/** Strongly connected components with more than one folder (Tarjan). */
function cycles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indices.get(next)!));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return found;
}

describe('folder dependencies of src/', () => {
  const graph = folderGraph();

  it('has no import cycle between folders', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('keeps db/ a leaf', () => {
    expect([...(graph.get('db') ?? [])]).toEqual([]);
  });
});
