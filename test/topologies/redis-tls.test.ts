/**
 * TLS (rediss://) on a cluster and under Sentinel: servers of the test's own that listen only on TLS
 * ports, with a CA made here; the connections createRedis builds for REDIS_CLUSTER_NODES=rediss://…
 * and REDIS_SENTINELS=rediss://… (sentinels and data nodes both over TLS) run commands and pub/sub.
 * A single server's rediss:// URL is ioredis's own TLS, unchanged.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { startChild, startNodeProcess, type ChildHandle } from '../chaos/chaos-harness';
import { freePort } from './redis-servers';

jest.setTimeout(60_000);

const secrets = { ENCRYPTION_KEY: 'ab'.repeat(32), HMAC_SECRET: 'x'.repeat(32) };

describe('Redis over TLS', () => {
  let dir: string;
  const children: ChildHandle[] = [];
  let tlsArgs: string[];

  const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const startTlsServer = async (args: string[], ready = /Ready to accept connections/) => {
    const port = await freePort();
    const server = startChild(
      'redis-server',
      [
        '--port',
        '0',
        '--tls-port',
        String(port),
        ...tlsArgs,
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        ...args,
      ],
      {},
    );
    children.push(server);
    await server.waitFor(ready, 20_000);
    return port;
  };
  const probeTarget = async (env: Record<string, string>) => {
    const config = loadConfig({ ...secrets, ...env });
    const probe = startNodeProcess('test/topologies/tls-probe.ts', { NODE_EXTRA_CA_CERTS: path.join(dir, 'ca.crt') }, [
      JSON.stringify(config.redis),
    ]);
    children.push(probe);
    const [line] = await probe.waitFor(/TLS OK \w+/, 30_000);
    return line;
  };

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'gw-redis-tls-'));
    openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=test-ca', '-keyout', 'ca.key', '-out', 'ca.crt']);
    openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', 'redis.key', '-out', 'redis.csr']);
    writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
    openssl([
      'x509',
      '-req',
      '-in',
      'redis.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      'san.ext',
      '-out',
      'redis.crt',
    ]);
    tlsArgs = [
      '--tls-cert-file',
      path.join(dir, 'redis.crt'),
      '--tls-key-file',
      path.join(dir, 'redis.key'),
      '--tls-ca-cert-file',
      path.join(dir, 'ca.crt'),
      '--tls-auth-clients',
      'no',
    ];
  });
  afterAll(async () => {
    await Promise.all(children.map((child) => child.kill('SIGKILL')));
    rmSync(dir, { recursive: true, force: true });
  });

  it('redis_cluster_over_tls: REDIS_CLUSTER_NODES=rediss://… reaches every node over TLS', async () => {
    // One master holding every slot: enough for the client's slot map, its node connections and pub/sub.
    const port = await startTlsServer([
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      'tls-nodes.conf',
      '--tls-cluster',
      'yes',
      '--cluster-announce-ip',
      '127.0.0.1',
      '--cluster-port',
      String(await freePort()),
    ]);
    execFileSync(
      'redis-cli',
      ['--tls', '--cacert', path.join(dir, 'ca.crt'), '-p', String(port), 'CLUSTER', 'ADDSLOTSRANGE', '0', '16383'],
      { stdio: 'pipe' },
    );
    expect(await probeTarget({ REDIS_CLUSTER_NODES: `rediss://127.0.0.1:${port}` })).toBe('TLS OK cluster');
  });

  it('redis_sentinel_over_tls: REDIS_SENTINELS=rediss://… asks the sentinels and reaches the primary over TLS', async () => {
    const primary = await startTlsServer([]);
    const sentinelPort = await freePort();
    const conf = path.join(dir, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `port 0`,
        `tls-port ${sentinelPort}`,
        `tls-cert-file ${path.join(dir, 'redis.crt')}`,
        `tls-key-file ${path.join(dir, 'redis.key')}`,
        `tls-ca-cert-file ${path.join(dir, 'ca.crt')}`,
        'tls-auth-clients no',
        'tls-replication yes',
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor tlsgw 127.0.0.1 ${primary} 1`,
        '',
      ].join('\n'),
    );
    const sentinel = startChild('redis-server', [conf, '--sentinel'], {});
    children.push(sentinel);
    await sentinel.waitFor(/\+monitor master tlsgw/, 20_000);
    expect(await probeTarget({ REDIS_SENTINELS: `rediss://127.0.0.1:${sentinelPort}`, REDIS_SENTINEL_NAME: 'tlsgw' })).toBe(
      'TLS OK sentinel',
    );
  });
});
