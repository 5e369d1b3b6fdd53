/**
 * Throw-away TLS certificates made with the `openssl` binary at test time (no key is committed):
 * a self-signed certificate for 127.0.0.1, and a leaf for 127.0.0.1 signed by a throw-away CA. No
 * client trusts either, so each makes a TLS verification failure with its own code.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestCertificates {
  selfSigned: { key: string; cert: string };
  ca: { cert: string };
  leaf: { key: string; cert: string };
}

export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gw-test-certs-'));
  try {
    const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');
    const subject = ['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'];
    openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', ...subject, '-keyout', 'self.key', '-out', 'self.crt']);
    openssl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=gateway-test-ca',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
    ]);
    openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', 'leaf.key', '-out', 'leaf.csr']);
    writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
    openssl([
      'x509',
      '-req',
      '-in',
      'leaf.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      'san.ext',
      '-out',
      'leaf.crt',
    ]);
    return {
      selfSigned: { key: read('self.key'), cert: read('self.crt') },
      ca: { cert: read('ca.crt') },
      leaf: { key: read('leaf.key'), cert: read('leaf.crt') },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
