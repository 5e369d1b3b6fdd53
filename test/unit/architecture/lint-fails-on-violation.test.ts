/**
 * Issue 24 (item 5): the lint step fails on a violation. ESLint runs with the project's own
 * eslint.config.mjs over a two-file fixture laid out like src/ (the tree itself is ignored there, so
 * `npm run lint` stays green): a db/ file that imports relay/ (db/ is a leaf) and drops a promise.
 * A child process, because ESLint loads its config with import(), which jest's module system does not run.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'lint-violation');

interface LintResult {
  filePath: string;
  messages: Array<{ ruleId: string | null; line: number; message: string }>;
}

function lintFixture(): LintResult[] {
  const eslint = path.join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js');
  const config = path.join(ROOT, 'eslint.config.mjs');
  try {
    execFileSync(process.execPath, [eslint, '--config', config, '--format', 'json', 'src'], { cwd: FIXTURE, encoding: 'utf8' });
    throw new Error('eslint exited 0 on a fixture with violations');
  } catch (error) {
    const { status, stdout } = error as { status?: number; stdout?: string };
    if (status !== 1 || stdout === undefined) throw error;
    return JSON.parse(stdout) as LintResult[];
  }
}

describe('npm run lint', () => {
  it('exits non-zero and names the forbidden folder import and the floating promise', () => {
    const results = lintFixture();
    const byFile = new Map(results.map((result) => [path.relative(FIXTURE, result.filePath), result.messages]));
    expect(byFile.get(path.join('src', 'db', 'leaf-violation.ts'))?.map(({ ruleId, line }) => ({ ruleId, line }))).toEqual([
      { ruleId: '@typescript-eslint/no-restricted-imports', line: 3 },
      { ruleId: '@typescript-eslint/no-floating-promises', line: 6 },
    ]);
    expect(byFile.get(path.join('src', 'db', 'clean.ts'))).toEqual([]);
    expect(byFile.get(path.join('src', 'relay', 'send-later.ts'))).toEqual([]);
  });

  it('runs in CI right after the install, before the build and the tests, over every source folder', () => {
    const steps = readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8')
      .split('\n')
      .filter((line) => /^npm (ci|run|test)\b/.test(line));
    expect(steps.slice(0, 3)).toEqual(['npm ci --no-audit --no-fund', 'npm run lint', 'npm run build']);
    const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.lint!.split(' ')).toEqual(expect.arrayContaining(['src', 'workers', 'scripts', 'test', 'console/src']));
    expect(scripts.lint).toMatch(/&& npm run format:check$/);
    expect(scripts['format:check']!.split(' ')).toEqual(['prettier', '--check', 'src', 'workers', 'scripts', 'test', 'console/src']);
  });

  it("ends with the formatter's check, which fails on a file the formatter would change and passes once formatted", () => {
    const prettier = path.join(ROOT, 'node_modules', 'prettier', 'bin', 'prettier.cjs');
    const config = path.join(ROOT, '.prettierrc.json');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'format-check-'));
    try {
      const file = path.join(dir, 'unformatted.ts');
      writeFileSync(file, 'export const x = {a:1,\n  b: "two"}\n');
      const check = () =>
        execFileSync(process.execPath, [prettier, '--config', config, '--check', file], { encoding: 'utf8', stdio: 'pipe' });
      expect(check).toThrow();
      execFileSync(process.execPath, [prettier, '--config', config, '--write', file], { stdio: 'pipe' });
      expect(readFileSync(file, 'utf8')).toBe("export const x = { a: 1, b: 'two' };\n");
      expect(check).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
