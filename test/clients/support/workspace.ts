/**
 * A fresh HOME and working directory for one CLI run, so no run sees another's settings, sessions
 * or caches. The home holds an `example` command (the simulator fills a string argument with
 * "example", so a shell tool call runs it) printing a per-run token, and the working directory a
 * file named `example` holding another token: a tool's real output can then be told apart from
 * anything the model could have made up.
 */
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Workspace {
  home: string;
  work: string;
  /** What the `example` command prints. */
  commandOutput: string;
  /** What the `example` file holds. */
  fileContent: string;
  /** The environment every CLI starts from: nothing of the suite's own environment leaks in. */
  env: Record<string, string>;
  remove(): void;
}

export function createWorkspace(): Workspace {
  const root = mkdtempSync(path.join(os.tmpdir(), 'gw-client-cell-'));
  const home = path.join(root, 'home');
  const work = path.join(root, 'work');
  const bin = path.join(home, 'bin');
  mkdirSync(bin, { recursive: true });
  mkdirSync(work, { recursive: true });
  const token = randomBytes(6).toString('hex');
  const commandOutput = `tool-output-${token}`;
  const fileContent = `file-content-${token}`;
  writeFileSync(path.join(bin, 'example'), `#!/bin/sh\necho ${commandOutput}\n`);
  chmodSync(path.join(bin, 'example'), 0o755);
  // Login and interactive shells rebuild PATH from the profile; keep the user's own bin on it.
  const profile = 'export PATH="$HOME/bin:$PATH"\n';
  writeFileSync(path.join(home, '.bash_profile'), profile);
  writeFileSync(path.join(home, '.bashrc'), profile);
  writeFileSync(path.join(home, '.profile'), profile);
  writeFileSync(path.join(work, 'example'), `${fileContent}\n`);
  writeFileSync(path.join(work, 'README.md'), '# scratch project\n');
  // Agent CLIs expect a project under version control (Codex refuses to run outside one).
  execFileSync('git', ['init', '-q'], { cwd: work });
  const env: Record<string, string> = {
    HOME: home,
    PATH: [bin, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    TMPDIR: os.tmpdir(),
  };
  return { home, work, commandOutput, fileContent, env, remove: () => rmSync(root, { recursive: true, force: true }) };
}
