/**
 * The README speaks to users: what it is, the two commands, connecting each provider preset,
 * compose, configuration, clients, API examples (reading a task back included), architecture;
 * no issue numbers or internal vocabulary; the benchmark figures live in docs/benchmarks.md.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROVIDER_NAMES } from '../../src/upstream/provider-presets';

const README = readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');

describe('the README', () => {
  it('has the sections a new operator needs', () => {
    for (const heading of [
      '## Quick start',
      '## Connect a real provider',
      '## Docker compose',
      '## Configuration',
      '## Use it with…',
      '## API examples',
      '## Architecture',
      '## Tests',
    ]) {
      expect(README).toContain(`\n${heading}\n`);
    }
    expect(README).toContain('npm ci && npm start');
    expect(README).toContain('npm ci && npm test');
  });

  it('shows one example per provider preset', () => {
    for (const provider of PROVIDER_NAMES) expect(README).toContain(`--provider ${provider} `);
  });

  it('shows how to read a task back', () => {
    expect(README).toContain('/v1/tasks/submit');
    expect(README).toContain('/v1/tasks/query');
  });

  it('uses no internal vocabulary and keeps the benchmark tables in docs/benchmarks.md', () => {
    expect(README).not.toMatch(
      /issue \d+|famil(y|ies) \d|migration \d{3}|this round|\(target [≤≥]|latest run|\.\.\/shared|registry mirror|package mirror|demo-console-password/i,
    );
    expect(README).toContain('docs/benchmarks.md');
    expect(README.split('\n').filter((line) => line.startsWith('|') && /req\/s|p50/.test(line))).toEqual([]);
    expect(readFileSync(path.resolve(__dirname, '../../docs/benchmarks.md'), 'utf8')).toContain('| Scenario | Target | req/s |');
  });
});
