/**
 * Builds the web console (`console/src`, React + Chart.js) with esbuild into `console/dist`: content-
 * hashed JS and CSS under `assets/` and an `index.html` naming them. `npm run build:console` always
 * builds; `npm start` calls `ensureConsoleBuilt()`, which rebuilds only when the sources changed
 * since the last build (a hash of every source file, stored beside the output).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const ROOT = path.resolve(__dirname, '..');
const SOURCE_DIR = path.join(ROOT, 'console');
// Beside its sources, not in the root `dist/` (the server build's output).
const OUT_DIR = path.join(SOURCE_DIR, 'dist');
const STAMP = path.join(OUT_DIR, 'build-stamp.txt');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const full = path.join(directory, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : [full];
  }).sort();
}

/** A hash of the console sources, this script and the locked dependency versions. */
function sourceHash(): string {
  const hash = createHash('sha256');
  for (const file of [...sourceFiles(path.join(SOURCE_DIR, 'src')), path.join(SOURCE_DIR, 'index.html'), __filename, path.join(ROOT, 'package-lock.json')]) {
    hash.update(path.relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

export async function buildConsole(): Promise<void> {
  const hash = sourceHash();
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
  writeFileSync(STAMP, hash);
}

export async function ensureConsoleBuilt(): Promise<'built' | 'fresh'> {
  const current = existsSync(STAMP) ? readFileSync(STAMP, 'utf8') : '';
  if (current === sourceHash() && existsSync(path.join(OUT_DIR, 'index.html'))) return 'fresh';
  await buildConsole();
  return 'built';
}

if (require.main === module) {
  const started = Date.now();
  buildConsole().then(() => console.log(`console built into ${path.relative(ROOT, OUT_DIR)} in ${Date.now() - started} ms`), (error: Error) => {
    console.error(`console build failed: ${error.message}`);
    process.exit(1);
  });
}
