/**
 * Builds the web console (`console/src`, React + Chart.js) with esbuild into `console/dist`: content-
 * hashed JS and CSS under `assets/` and an `index.html` naming them. `npm run build:console` always
 * builds; `npm start` calls `ensureConsoleBuilt()`, which rebuilds only when a file the last build
 * read changed (their hash and list are stored beside the output).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const ROOT = path.resolve(__dirname, '..');
const SOURCE_DIR = path.join(ROOT, 'console');
// Beside its sources, not in the root `dist/` (the server build's output).
const OUT_DIR = path.join(SOURCE_DIR, 'dist');
const STAMP = path.join(OUT_DIR, 'build-stamp.json');

/**
 * A hash of what the last build read: its own input files (the console's sources and the server
 * modules it shares, e.g. the CIDR parser), the page template, this script and the lock file.
 */
function sourceHash(inputs: string[]): string {
  const hash = createHash('sha256');
  for (const file of [...inputs, path.join(SOURCE_DIR, 'index.html'), __filename, path.join(ROOT, 'package-lock.json')]) {
    hash
      .update(path.relative(ROOT, file))
      .update('\0')
      .update(existsSync(file) ? readFileSync(file) : 'missing')
      .update('\0');
  }
  return hash.digest('hex');
}

interface Stamp {
  hash: string;
  inputs: string[];
}

export async function buildConsole(): Promise<void> {
  rmSync(OUT_DIR, { recursive: true, force: true });
  mkdirSync(OUT_DIR, { recursive: true });
  const result = await build({
    entryPoints: [path.join(SOURCE_DIR, 'src', 'main.tsx')],
    bundle: true,
    outdir: path.join(OUT_DIR, 'assets'),
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    format: 'esm',
    target: ['es2022'],
    jsx: 'automatic',
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    metafile: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
  const script = outputs.find((file) => file.endsWith('.js'));
  const style = outputs.find((file) => file.endsWith('.css'));
  if (!script) throw new Error('console build produced no script');
  const template = readFileSync(path.join(SOURCE_DIR, 'index.html'), 'utf8');
  const html = template
    .replace('<!--styles-->', style ? `<link rel="stylesheet" href="/console/assets/${style}">` : '')
    .replace('<!--scripts-->', `<script type="module" src="/console/assets/${script}"></script>`);
  writeFileSync(path.join(OUT_DIR, 'index.html'), html);
  // esbuild names inputs relative to the working directory; node_modules are covered by the lock file.
  const inputs = Object.keys(result.metafile.inputs)
    .filter((file) => !file.includes('node_modules'))
    .map((file) => path.resolve(file))
    .sort();
  const stamp: Stamp = { hash: sourceHash(inputs), inputs };
  writeFileSync(STAMP, JSON.stringify(stamp));
}

function readStamp(): Stamp | undefined {
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8')) as Stamp;
  } catch {
    return undefined;
  }
}

export async function ensureConsoleBuilt(): Promise<'built' | 'fresh'> {
  const stamp = readStamp();
  // A new source file changes an existing one (its importer), so the old input list is enough.
  if (stamp && stamp.hash === sourceHash(stamp.inputs) && existsSync(path.join(OUT_DIR, 'index.html'))) return 'fresh';
  await buildConsole();
  return 'built';
}

if (require.main === module) {
  const started = Date.now();
  buildConsole().then(
    () => console.log(`console built into ${path.relative(ROOT, OUT_DIR)} in ${Date.now() - started} ms`),
    (error: Error) => {
      console.error(`console build failed: ${error.message}`);
      process.exit(1);
    },
  );
}
