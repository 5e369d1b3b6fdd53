/**
 * One supported Node everywhere: the current LTS (26) and the previous one (24). package.json's
 * engines, the image, .nvmrc, the LTS CI installs when the machine's node is older, and the README agree.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const LTS = 26;
const PREVIOUS_LTS = 24;

describe('the supported Node', () => {
  it('engines admit the previous LTS and up', () => {
    const pkg = JSON.parse(read('package.json')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(`>=${PREVIOUS_LTS}`);
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { engines?: { node: string } }> };
    expect(lock.packages['']!.engines).toEqual(pkg.engines);
  });

  it('the image builds and runs on the LTS', () => {
    const images = [...read('Dockerfile').matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) expect(image).toMatch(new RegExp(`^node:${LTS}-`));
  });

  it('CI and .nvmrc run the LTS', () => {
    expect(read('.ci/run')).toMatch(new RegExp(`^NODE_LTS_MAJOR=${LTS}$`, 'm'));
    expect(read('.nvmrc').trim()).toBe(String(LTS));
  });

  it('the README says the same', () => {
    expect(read('README.md')).toContain(`Node.js ${LTS}`);
    expect(read('README.md')).not.toMatch(/Node(\.js)? 20\b/);
  });
});
