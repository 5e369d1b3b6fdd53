/**
 * The admin CLI as an operator runs it (a real process): help for the tool, a group and each command
 * without touching the database; usage errors in one line with exit code 2; refusals about the data
 * (unknown account or group, a name taken, a failed verification) in one line with exit code 1;
 * operators made by `user create --role operator`; named keys; upstream accounts added by preset,
 * verified against the simulator, listed with their health and tested; a routing group made private,
 * granted, listed and revoked, with the account's key following at once and every change audited.
 */
import { startSimulator, type Simulator } from '../../../scripts/provider-sim/server';
import { createKeyAuthenticator, type GatewayKeyAuthenticator } from '../../../src/auth/create-key-authenticator';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { expectOneLine, runAdmin as admin } from '../../support/run-admin';

jest.setTimeout(180_000);

const UNREACHABLE_DB = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', REDIS_URL: 'redis://127.0.0.1:1' };

describe('admin CLI help, without a database', () => {
  it('no command, --help and help print the commands and exit 0', async () => {
    for (const args of [[], ['--help'], ['help']]) {
      const run = await admin(UNREACHABLE_DB, ...args);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('upstream add');
      expect(run.stdout).toContain('user create');
      expect(run.stderr).toBe('');
    }
  });

  it('each command has its own help: usage line and every flag', async () => {
    const run = await admin(UNREACHABLE_DB, 'upstream', 'add', '--help');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^upstream add: /);
    expect(run.stdout).toContain('usage: npm run admin -- upstream add --group GROUP');
    for (const flag of ['--provider', '--base-url', '--api-key', '--models', '--no-verify', '--api-version'])
      expect(run.stdout).toContain(flag);
    const user = await admin(UNREACHABLE_DB, 'help', 'user', 'create');
    expect(user.stdout).toContain('--role ROLE');
    expect((await admin(UNREACHABLE_DB, 'key', 'create', '-h')).stdout).toContain('--name NAME');
    const group = await admin(UNREACHABLE_DB, 'upstream', '--help');
    expect(group.code).toBe(0);
    expect(group.stdout).toContain('upstream test');
  });

  it('usage errors: one line naming the problem, exit 2, before any connection', async () => {
    expectOneLine(
      await admin(UNREACHABLE_DB, 'acount', 'create'),
      2,
      'unknown command "acount create"; npm run admin -- --help lists the commands',
    );
    expectOneLine(
      await admin(UNREACHABLE_DB, 'key', 'create', '--acount', '1', '--group', 'g'),
      2,
      'key create: unknown flag --acount (did you mean --account?)',
    );
    expectOneLine(
      await admin(UNREACHABLE_DB, 'account', 'create', '--name', 'x', '--tier', 'gold'),
      2,
      '--tier must be free, pro, max or enterprise, not "gold"',
    );
    expectOneLine(await admin(UNREACHABLE_DB, 'account', 'create'), 2, 'account create: --name is required');
    expectOneLine(
      await admin(UNREACHABLE_DB, 'user', 'create', '--account', '1', '--email', 'a@b.c', '--password', 'long enough', '--role', 'admin'),
      2,
      '--role must be member or operator, not "admin"',
    );
    expectOneLine(
      await admin(UNREACHABLE_DB, 'upstream', 'add', '--group', 'g', '--api-key', 'k', '--models', 'gpt-4.1', '--provider', 'openia'),
      2,
      /^upstream add: unknown provider "openia"; use one of anthropic, openai, /,
    );
    expectOneLine(await admin(UNREACHABLE_DB, 'upstream', 'test'), 2, 'upstream test: missing <id>');
  });

  it('no database: one line saying where it looked and how to start it, exit 1', async () => {
    expectOneLine(
      await admin(UNREACHABLE_DB, 'group', 'list'),
      1,
      /^PostgreSQL is not reachable at postgres:\/\/nobody@127\.0\.0\.1:1\/none .*docker compose up -d postgres redis/,
    );
  });
});

describe('admin CLI on a database', () => {
  let deps: TestDependencies;
  let sim: Simulator;
  let env: Record<string, string>;
  beforeAll(async () => {
    deps = await createTestDependencies();
    sim = await startSimulator({ port: 0 });
    env = deps.env;
  });
  afterAll(async () => {
    await sim.close();
    await deps.close();
  });

  const json = async (...args: string[]) => {
    const run = await admin(env, ...args, '--json');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    return JSON.parse(run.stdout) as Record<string, unknown>;
  };

  it('accounts, groups, named keys and operators; duplicates and unknown references refused in one line', async () => {
    const account = (await json('account', 'create', '--name', 'acme', '--tier', 'pro')).id as number;
    await json('group', 'create', '--name', 'team');
    expectOneLine(await admin(env, 'group', 'create', '--name', 'team'), 1, 'a routing group named "team" already exists');
    expectOneLine(await admin(env, 'group', 'create', '--name', 'x', '--family', 'acme'), 2, /^--family must be one of anthropic, openai/);

    const key = await json('key', 'create', '--account', String(account), '--group', 'team', '--name', 'ci pipeline');
    const stored = await deps.db.query('SELECT name FROM api_keys WHERE id = $1', [key.id]);
    expect(stored.rows[0]).toEqual({ name: 'ci pipeline' });
    expectOneLine(
      await admin(env, 'key', 'create', '--account', '999999', '--group', 'team'),
      1,
      'account 999999 does not exist (npm run admin -- account list)',
    );
    expectOneLine(
      await admin(env, 'key', 'create', '--account', String(account), '--group', 'nope'),
      1,
      'routing group "nope" does not exist (npm run admin -- group list)',
    );
    expectOneLine(
      await admin(env, 'key', 'create', '--account', 'abc', '--group', 'team'),
      2,
      '--account must be an id (a positive whole number), not "abc"',
    );

    const user = await json(
      'user',
      'create',
      '--account',
      String(account),
      '--email',
      'Ops@Example.test',
      '--password',
      'a long password',
      '--role',
      'operator',
    );
    const role = await deps.db.query('SELECT role FROM console_users WHERE id = $1', [user.id]);
    expect(role.rows[0]).toEqual({ role: 'operator' });
    expectOneLine(
      await admin(env, 'user', 'create', '--account', String(account), '--email', 'ops@example.test', '--password', 'another password'),
      1,
      'a console user with email ops@example.test already exists',
    );
  });

  it('every change the CLI makes is in the audit log, as the cli, never with a secret', async () => {
    const account = (await json('account', 'create', '--name', 'audited')).id as number;
    await json('account', 'topup', '--account', String(account), '--usd', '2');
    const key = await json('key', 'create', '--account', String(account), '--group', 'team', '--name', 'audited key');
    await json('user', 'create', '--account', String(account), '--email', 'audited@example.test', '--password', 'a secret password');
    await json('account', 'list');
    const events = await deps.db.query<{ actor_label: string; action: string; target_type: string; target_id: string; account_id: string }>(
      "SELECT actor_label, action, target_type, target_id, account_id, after FROM audit_events WHERE actor_type = 'cli' AND account_id = $1 ORDER BY id",
      [account],
    );
    expect(events.rows.map((row) => row.action)).toEqual(['account.create', 'money.topup', 'key.create', 'console_user.create']);
    expect(events.rows.find((row) => row.action === 'key.create')).toMatchObject({ target_type: 'api_key', target_id: String(key.id) });
    expect(events.rows.every((row) => row.actor_label.startsWith('cli'))).toBe(true);
    const text = JSON.stringify(events.rows);
    expect(text).not.toContain(String(key.key));
    expect(text).not.toContain('a secret password');
  });

  it('group visibility, grant, grants and revoke: the key follows at once, each change audited as the cli', async () => {
    const account = (await json('account', 'create', '--name', 'granted tenant')).id as number;
    const group = (await json('group', 'create', '--name', 'tenant-only')).id as number;
    const key = await json('key', 'create', '--account', String(account), '--group', 'tenant-only', '--name', 'grant probe');
    // An authenticator of this process, caching like an API process's: only the CLI's invalidation
    // over Redis makes it see a change before its cache expires.
    const authenticator: GatewayKeyAuthenticator = createKeyAuthenticator(deps);
    await authenticator.ready();
    const keyUse = () =>
      authenticator.authenticate(String(key.key), '127.0.0.1').then(
        () => 'allowed',
        (error: { kind?: string; message?: string }) => `${error.kind}: ${error.message}`,
      );
    const eventually = async (expected: string) => {
      const deadline = Date.now() + 2_000;
      let seen = await keyUse();
      while (seen !== expected && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        seen = await keyUse();
      }
      expect(seen).toBe(expected);
    };
    const refused = "permission: API key's routing group tenant-only is not granted to this account";
    try {
      await eventually('allowed');
      expect(await json('group', 'visibility', '--group', 'tenant-only', '--private')).toEqual({ group_id: group, visibility: 'private' });
      await eventually(refused);

      expect(await json('group', 'grant', '--group', 'tenant-only', '--account', String(account))).toEqual({
        group_id: group,
        account_id: account,
        created: true,
      });
      await eventually('allowed');
      expect((await json('group', 'grant', '--group', String(group), '--account', String(account))).created).toBe(false);
      expect(await json('group', 'grants', '--group', 'tenant-only')).toEqual({
        grants: [{ account_id: account, account_name: 'granted tenant', created_at: expect.any(String) }],
      });
      expect((await admin(env, 'group', 'grants', '--group', 'tenant-only')).stdout).toMatch(
        new RegExp(`^${account}\tgranted tenant\t\\d{4}-`),
      );

      expect(await json('group', 'revoke', '--group', 'tenant-only', '--account', String(account))).toEqual({
        group_id: group,
        account_id: account,
        revoked: true,
      });
      await eventually(refused);
      expect((await json('group', 'revoke', '--group', 'tenant-only', '--account', String(account))).revoked).toBe(false);
      expect(await json('group', 'grants', '--group', 'tenant-only')).toEqual({ grants: [] });
      expect(await json('group', 'visibility', '--group', 'tenant-only', '--public')).toEqual({ group_id: group, visibility: 'public' });
      await eventually('allowed');
    } finally {
      await authenticator.close();
    }

    // One row per change that happened; the repeated grant and revoke changed nothing and wrote nothing.
    const events = await deps.db.query<{
      actor_type: string;
      actor_label: string;
      action: string;
      account_id: number | null;
      before: unknown;
      after: unknown;
    }>(
      "SELECT actor_type, actor_label, action, account_id, before, after FROM audit_events WHERE target_type = 'routing_group' AND target_id = $1 ORDER BY id",
      [String(group)],
    );
    expect(events.rows.map(({ actor_label: _label, ...row }) => row)).toEqual([
      { actor_type: 'cli', action: 'group.create', account_id: null, before: null, after: { name: 'tenant-only' } },
      { actor_type: 'cli', action: 'group.update', account_id: null, before: { visibility: 'public' }, after: { visibility: 'private' } },
      { actor_type: 'cli', action: 'grant.create', account_id: account, before: null, after: { group_id: group, account_id: account } },
      { actor_type: 'cli', action: 'grant.revoke', account_id: account, before: { group_id: group, account_id: account }, after: null },
      { actor_type: 'cli', action: 'group.update', account_id: null, before: { visibility: 'private' }, after: { visibility: 'public' } },
    ]);
    expect(events.rows.every((row) => row.actor_label.startsWith('cli'))).toBe(true);

    expectOneLine(
      await admin(env, 'group', 'grant', '--group', 'nope', '--account', String(account)),
      1,
      'routing group "nope" does not exist (npm run admin -- group list)',
    );
    expectOneLine(
      await admin(env, 'group', 'grant', '--group', 'tenant-only', '--account', '999999'),
      1,
      'account 999999 does not exist (npm run admin -- account list)',
    );
    expectOneLine(
      await admin(env, 'group', 'revoke', '--group', 'nope', '--account', String(account)),
      1,
      'routing group "nope" does not exist (npm run admin -- group list)',
    );
    expectOneLine(
      await admin(env, 'group', 'grants', '--group', 'nope'),
      1,
      'routing group "nope" does not exist (npm run admin -- group list)',
    );
    expectOneLine(await admin(env, 'group', 'visibility', '--group', 'tenant-only'), 2, 'say --public or --private');
  });

  it('upstream add by preset: verified against the provider, the base URL normalisation reported; list shows health; test', async () => {
    const added = await admin(
      env,
      'upstream',
      'add',
      '--group',
      'team',
      '--provider',
      'openai',
      '--base-url',
      `${sim.url}/v1`,
      '--api-key',
      'sim-key',
      '--models',
      'gpt-4.1',
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('base URL: removed the version segment /v1');
    const id = Number(/upstream account (\d+) added/.exec(added.stdout)?.[1]);
    expect(added.stdout).toContain(`(openai at ${sim.url}; verified: credential accepted; gpt-4.1 listed`);

    expectOneLine(
      await admin(
        env,
        'upstream',
        'add',
        '--group',
        'team',
        '--provider',
        'openai',
        '--base-url',
        sim.url,
        '--api-key',
        'wrong-key',
        '--models',
        'gpt-4.1',
      ),
      1,
      'upstream add: verification failed: the provider refused the credential (HTTP 401) when asked for its model list (/v1/models): check the API key (nothing saved; --no-verify saves anyway)',
    );
    expectOneLine(
      await admin(
        env,
        'upstream',
        'add',
        '--group',
        'team',
        '--provider',
        'openai',
        '--base-url',
        sim.url,
        '--api-key',
        'sim-key',
        '--models',
        'gpt-4o-nonexistent',
      ),
      1,
      /verification failed: model gpt-4o-nonexistent is not in the catalog/,
    );
    const unverified = await json(
      'upstream',
      'add',
      '--group',
      'team',
      '--provider',
      'openai',
      '--base-url',
      'http://127.0.0.1:9',
      '--api-key',
      'k',
      '--models',
      'gpt-4.1',
      '--no-verify',
    );
    expect(unverified.verified).toBe(false);

    const listing = await admin(env, 'upstream', 'list');
    expect(listing.stdout).toMatch(new RegExp(`${id}  team .*openai  ${sim.url.replace(/[.]/g, '\\.')}[^\n]*\n    health: ok at `));
    expect(listing.stdout).toMatch(new RegExp(`${unverified.id as number}  team [^\n]*\n    health: not checked yet`));
    expect((await admin(env, 'upstream', 'test', String(id))).stdout).toMatch(new RegExp(`^upstream account ${id}: ok`));
    expectOneLine(
      await admin(env, 'upstream', 'test', String(unverified.id)),
      1,
      `upstream account ${unverified.id as number}: cannot reach http://127.0.0.1:9: connection refused`,
    );
    expect((await admin(env, 'upstream', 'list')).stdout).toMatch(
      /health: FAILING at [^:]+:[^:]+:[^:]+: cannot reach http:\/\/127\.0\.0\.1:9: connection refused/,
    );
    expectOneLine(
      await admin(env, 'upstream', 'test', '999999'),
      1,
      'upstream account 999999 does not exist (npm run admin -- upstream list)',
    );
  });
});
