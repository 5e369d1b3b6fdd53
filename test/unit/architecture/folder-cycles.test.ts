/**
 * Issue 13: no import cycle between the folders of src/ (type-only imports count too: they still tie
 * the folders' designs together), and db/ is a leaf (pool, transactions, migrations).
 * Issue 24: the files directly under src/ (app.ts, config.ts, dependencies.ts, server.ts, services.ts)
 * are nodes too, each on its own. What that found: a cycle auth → upstream → limits → auth (upstream/
 * loaded its Lua scripts through limits/redis-script.ts, now redis/redis-script.ts beside the scripts),
 * and the documented exception below.
 * The same functions run on test/fixtures/folder-cycle, whose two folders import each other, to show
 * the check fails on a cycle.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const SRC = path.resolve(__dirname, '..', '..', '..', 'src');
/** A tree whose alpha/ and beta/ import each other (the second edge type-only), for the self-test. */
const CYCLE_FIXTURE = path.resolve(__dirname, '..', '..', 'fixtures', 'folder-cycle', 'src');
const IMPORT = /(?:import|export)\s[^'"]*?from\s+'(\.{1,2}\/[^']+)'|import\(\s*'(\.{1,2}\/[^']+)'\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

/** The top folder of src/ a file belongs to; a file directly in src/ is a node of its own ('app.ts'). */
function folderOf(root: string, file: string): string {
  const relative = path.relative(root, file);
  return relative.includes(path.sep) ? relative.split(path.sep)[0]! : `${relative.replace(/\.ts$/, '')}.ts`;
}

/**
 * Documented exception: dependencies.ts is the type of the injected bag every folder takes, and it
 * names the types of the services it carries (auth's SecretCrypto, catalog's Catalog, http's Logger
 * and Metrics), which closes a cycle with each of those folders. Type-only, so no load order depends
 * on it; it goes when consumers take only the services they use. A new edge out of dependencies.ts
 * that closes a cycle, or a runtime import on these, fails below.
 */
const EXCEPTIONS = ['dependencies.ts -> auth', 'dependencies.ts -> catalog', 'dependencies.ts -> http'];

/** Folder → folder edges, each with whether every import behind it is `import type`. */
function importEdges(root: string): Map<string, { typeOnly: boolean }> {
  const edges = new Map<string, { typeOnly: boolean }>();
  for (const file of sourceFiles(root)) {
    const from = folderOf(root, file);
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = path.resolve(path.dirname(file), match[1] ?? match[2]!);
      if (!target.startsWith(root)) continue;
      const to = folderOf(root, target);
      if (to === from) continue;
      const key = `${from} -> ${to}`;
      const typeOnly = /^(?:import|export) type\s/.test(match[0]);
      edges.set(key, { typeOnly: (edges.get(key)?.typeOnly ?? true) && typeOnly });
    }
  }
  return edges;
}

function folderGraph(root: string, edges: Map<string, unknown>): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(root)) graph.set(folderOf(root, file), new Set());
  for (const key of edges.keys()) {
    const [from, to] = key.split(' -> ') as [string, string];
    graph.get(from)!.add(to);
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
  const edges = importEdges(SRC);
  const graph = folderGraph(SRC, edges);

  it('has no import cycle between folders and the files directly under src/', () => {
    const withoutExceptions = new Map([...edges].filter(([key]) => !EXCEPTIONS.includes(key)));
    expect(cycles(folderGraph(SRC, withoutExceptions))).toEqual([]);
  });

  it('counts the files directly under src/ as nodes of their own', () => {
    for (const file of ['app.ts', 'config.ts', 'dependencies.ts', 'server.ts', 'services.ts']) expect(graph.has(file)).toBe(true);
    expect(graph.get('server.ts')).toContain('app.ts');
  });

  it('keeps each documented exception type-only (and drops it from the list once it is gone)', () => {
    expect(EXCEPTIONS.map((key) => [key, edges.get(key)])).toEqual(EXCEPTIONS.map((key) => [key, { typeOnly: true }]));
  });

  it('keeps db/ a leaf', () => {
    expect([...(graph.get('db') ?? [])]).toEqual([]);
  });
});

describe('the cycle check, on a fixture tree with a cycle', () => {
  const edges = importEdges(CYCLE_FIXTURE);

  it('reports the two folders that import each other, and only them', () => {
    expect(cycles(folderGraph(CYCLE_FIXTURE, edges))).toEqual([['alpha', 'beta']]);
  });

  it('counts a type-only import as an edge of the cycle', () => {
    expect(edges.get('beta -> alpha')).toEqual({ typeOnly: true });
    expect(edges.get('alpha -> beta')).toEqual({ typeOnly: false });
  });

  it('finds no cycle once the edge that closes it is gone, so it is the edge that fails the check', () => {
    const withoutBack = new Map([...edges].filter(([key]) => key !== 'beta -> alpha'));
    expect(cycles(folderGraph(CYCLE_FIXTURE, withoutBack))).toEqual([]);
    expect(folderGraph(CYCLE_FIXTURE, withoutBack).get('main.ts')).toEqual(new Set(['gamma']));
  });
});
