import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../../src/config';

const secrets = { ENCRYPTION_KEY: 'ab'.repeat(32), HMAC_SECRET: 'x'.repeat(32) };

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadConfig', () => {
  it('has defaults that work on this machine', () => {
    const config = loadConfig({ ...secrets });
    expect(config.port).toBe(8080);
    expect(config.databaseUrl).toBe('postgres://postgres:postgres@127.0.0.1:5432/gateway');
    expect(config.redis).toEqual({ kind: 'server', url: 'redis://127.0.0.1:6379' });
    expect(config.s3.endpoint).toBeUndefined();
    expect(config.encryptionKey).toHaveLength(32);
    expect(config.databaseReadUrl).toBeUndefined();
  });

  it('takes a read replica for the console from DATABASE_READ_URL', () => {
    const config = loadConfig({ ...secrets, DATABASE_READ_URL: 'postgresql://reader:pw@replica:5432/gateway' });
    expect(config.databaseReadUrl).toBe('postgresql://reader:pw@replica:5432/gateway');
  });

  it.each([
    ['PORT', 'eighty', 'PORT'],
    ['DATABASE_URL', 'not a url', 'DATABASE_URL'],
    ['DATABASE_READ_URL', 'not a url', 'DATABASE_READ_URL'],
    ['DATABASE_READ_URL', 'mysql://replica:3306/gateway', 'DATABASE_READ_URL'],
    ['REDIS_URL', '::', 'REDIS_URL'],
    ['ENCRYPTION_KEY', 'short', 'ENCRYPTION_KEY'],
    ['HMAC_SECRET', 'short', 'HMAC_SECRET'],
    ['LOG_LEVEL', 'loud', 'LOG_LEVEL'],
    ['WEBHOOK_DELIVERIES_RETENTION_DAYS', '0', 'WEBHOOK_DELIVERIES_RETENTION_DAYS'],
    ['WEBHOOK_DELIVERIES_RETENTION_DAYS', '2.5', 'WEBHOOK_DELIVERIES_RETENTION_DAYS'],
  ])('names the bad variable %s', (name, value, expected) => {
    const found = problems({ ...secrets, [name]: value });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(new RegExp(`^${expected}:`));
  });

  it('names every bad variable at once', () => {
    expect(
      problems({ ...secrets, PORT: 'x', S3_ENDPOINT: 'nope' })
        .map((p) => p.split(':')[0])
        .sort(),
    ).toEqual(['PORT', 'S3_ENDPOINT']);
  });

  it('requires the secrets in production, naming them', () => {
    expect(problems({ NODE_ENV: 'production' })).toEqual([
      'ENCRYPTION_KEY: required in production (64 hex characters: openssl rand -hex 32; see .env.example)',
      'HMAC_SECRET: required in production (at least 32 characters: openssl rand -hex 32; see .env.example)',
    ]);
    // Empty (as docker compose passes an unset `${X:-}`) is unset: never a silently empty secret.
    expect(problems({ NODE_ENV: 'production', ENCRYPTION_KEY: '', HMAC_SECRET: '' }).map((p) => p.split(':')[0])).toEqual([
      'ENCRYPTION_KEY',
      'HMAC_SECRET',
    ]);
  });

  it('listens on loopback unless HOST says otherwise', () => {
    expect(loadConfig(secrets).host).toBe('127.0.0.1');
    expect(loadConfig({ ...secrets, HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
  });

  it('keeps the webhook delivery log 30 days unless told otherwise', () => {
    expect(loadConfig(secrets).webhooks.deliveriesRetentionDays).toBe(30);
    expect(loadConfig({ ...secrets, WEBHOOK_DELIVERIES_RETENTION_DAYS: '7' }).webhooks.deliveriesRetentionDays).toBe(7);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ ...secrets, S3_ENDPOINT: '', PORT: '' }).port).toBe(8080);
  });

  it('generates development secrets once, keeps them in a local file and warns', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'gw-config-')), 'secrets.json');
    const first = loadConfig({ SECRETS_FILE: file });
    expect(first.warnings.join()).toMatch(/generated development secrets/);
    const second = loadConfig({ SECRETS_FILE: file });
    expect(second.warnings).toEqual([]);
    expect(second.encryptionKey.equals(first.encryptionKey)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8')).hmacSecret).toBe(first.hmacSecret);
  });

  describe('Redis topologies', () => {
    it('reads a Sentinel set: sentinels, primary name, auth, TLS from the scheme', () => {
      const config = loadConfig({
        ...secrets,
        REDIS_SENTINELS: 'rediss://10.0.0.1:26379, rediss://[::1]:26380',
        REDIS_SENTINEL_NAME: 'gw',
        REDIS_SENTINEL_PASSWORD: 'sp',
        REDIS_PASSWORD: 'dp',
      });
      expect(config.redis).toEqual({
        kind: 'sentinel',
        sentinels: [
          { host: '10.0.0.1', port: 26379 },
          { host: '::1', port: 26380 },
        ],
        name: 'gw',
        sentinelPassword: 'sp',
        username: undefined,
        password: 'dp',
        tls: true,
      });
    });

    it("reads a cluster's seed nodes", () => {
      const config = loadConfig({ ...secrets, REDIS_CLUSTER_NODES: 'r1:7000,r2:7001' });
      expect(config.redis).toEqual({
        kind: 'cluster',
        nodes: [
          { host: 'r1', port: 7000 },
          { host: 'r2', port: 7001 },
        ],
        username: undefined,
        password: undefined,
        tls: false,
      });
    });

    it.each([
      [{ REDIS_SENTINELS: 'a:1' }, 'REDIS_SENTINEL_NAME'],
      [{ REDIS_SENTINELS: 'a:1', REDIS_SENTINEL_NAME: 'm', REDIS_CLUSTER_NODES: 'b:2' }, 'REDIS_CLUSTER_NODES'],
      [{ REDIS_URL: 'redis://x:6379', REDIS_CLUSTER_NODES: 'b:2' }, 'REDIS_CLUSTER_NODES'],
      [{ REDIS_CLUSTER_NODES: 'b' }, 'REDIS_CLUSTER_NODES'],
      [{ REDIS_CLUSTER_NODES: 'b:99999' }, 'REDIS_CLUSTER_NODES'],
      [{ REDIS_SENTINELS: 'redis://a:1,rediss://b:2', REDIS_SENTINEL_NAME: 'm' }, 'REDIS_SENTINELS'],
      [{ REDIS_PASSWORD: 'p' }, 'REDIS_PASSWORD'],
    ])('redis_topology_is_validated_at_start: %j names %s', (env, expected) => {
      const found = problems({ ...secrets, ...env });
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(new RegExp(`^${expected}:`));
    });
  });
});
