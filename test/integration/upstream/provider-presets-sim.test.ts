/**
 * Provider presets against the provider simulator: each preset is verified (its model list, or for
 * Azure OpenAI a minimal call to the deployment) and saved, then serves a real request in its own
 * path and credential shape (Azure: deployment path, api-version query, api-key header). Each
 * verification failure names its cause (a credential refused with 401 or 403, a wrong base URL,
 * connection refused, DNS, TLS against throw-away local https servers, a model not listed or not in
 * the catalog); nothing of it is billed.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { insertApiKey } from '../../../src/keys/insert-api-key';
import { addUpstream, checkStoredUpstream, UpstreamVerificationError, type UpstreamDeps } from '../../../src/operator/save-upstream';
import { createGroup } from '../../../src/process/seed';
import { startTestGateway, type TestGateway } from '../../support/gateway';
import { makeTestCertificates, type TestCertificates } from '../../support/test-certificates';

jest.setTimeout(60_000);

const BODIES: Record<string, { path: string; body: unknown }> = {
  messages: { path: '/v1/messages', body: { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] } },
  responses: { path: '/v1/responses', body: { model: 'gpt-4.1', input: 'Hello' } },
  'generate-content': {
    path: '/v1beta/models/gemini-2.5-flash:generateContent',
    body: { contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] },
  },
};

describe('provider presets against the simulator', () => {
  let gateway: TestGateway;
  let deps: UpstreamDeps;
  let groups = 0;
  beforeAll(async () => {
    gateway = await startTestGateway();
    deps = { ...gateway.deps, upstreamClient: gateway.services.upstreamClient };
  });
  afterAll(async () => {
    await gateway.close();
  });

  const usageRows = async () => Number((await gateway.deps.db.query<{ n: string }>('SELECT count(*) AS n FROM usage_rows')).rows[0]!.n);
  const newGroup = () => createGroup(gateway.deps.db, { name: `presets-${++groups}` });

  async function call(key: string, protocol: string, model: string): Promise<Response> {
    const { path, body } = BODIES[protocol] ?? {
      path: '/v1/chat/completions',
      body: { model, max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] },
    };
    return fetch(`${gateway.url}${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    });
  }

  it.each([
    ['anthropic', 'claude-sonnet-4-5', '/v1', '/v1/models?limit=1000', '/v1/messages', 'x-api-key'],
    ['openai', 'gpt-4.1', '/v1', '/v1/models', '/v1/responses', 'authorization'],
    [
      'gemini',
      'gemini-2.5-flash',
      '/v1beta',
      '/v1beta/models?pageSize=1000',
      '/v1beta/models/gemini-2.5-flash:generateContent',
      'x-goog-api-key',
    ],
    ['deepseek', 'deepseek-v3.2', '', '/v1/models', '/v1/chat/completions', 'authorization'],
    ['mistral', 'mistral-large', '/v1', '/v1/models', '/v1/chat/completions', 'authorization'],
    ['xai', 'grok-4', '', '/v1/models', '/v1/chat/completions', 'authorization'],
    ['moonshot', 'kimi-k2', '/v1', '/v1/models', '/v1/chat/completions', 'authorization'],
    ['openrouter', 'gpt-4.1', '/v1', '/v1/models', '/v1/chat/completions', 'authorization'],
    ['openai-compatible', 'llama-3.3-70b', '/v1/', '/v1/models', '/v1/chat/completions', 'authorization'],
    [
      'azure-openai',
      'gpt-4.1',
      '/openai',
      '/openai/deployments/gpt-4.1/chat/completions?api-version=2024-10-21',
      '/openai/deployments/gpt-4.1/chat/completions?api-version=2024-10-21',
      'api-key',
    ],
  ])(
    '%s: verified, saved with a normalised base URL, serves a request in its own shape',
    async (provider, model, suffix, probePath, callPath, header) => {
      const groupId = await newGroup();
      const rows = await usageRows();
      const before = gateway.sim.requests.length;
      const saved = await addUpstream(deps, {
        groupId,
        provider,
        baseUrl: gateway.sim.url + suffix,
        apiKey: 'sim-key',
        models: [model],
        verify: true,
      });
      expect(saved.upstream.baseUrl).toBe(gateway.sim.url);
      if (suffix !== '') expect(saved.upstream.notes.length).toBeGreaterThan(0);
      expect(saved.probe?.ok).toBe(true);
      const probe = gateway.sim.requests.slice(before);
      expect(probe.map((r) => r.path)).toEqual([probePath]);
      expect(await usageRows()).toBe(rows); // verification is never billed

      const key = (await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: gateway.accountId, groupId, name: provider }))
        .secret;
      const response = await call(key, saved.upstream.protocol, model);
      expect(response.status).toBe(200);
      await response.text();
      const sent = gateway.sim.requests.at(-1)!;
      expect(sent.path).toBe(callPath);
      expect(sent.headers[header]).toBe(header === 'authorization' ? 'Bearer sim-key' : 'sim-key');
      if (header === 'api-key') expect(sent.headers.authorization).toBeUndefined();
    },
  );

  async function refusal(input: Partial<Parameters<typeof addUpstream>[1]>): Promise<UpstreamVerificationError> {
    const groupId = await newGroup();
    const rows = await usageRows();
    const count = await gateway.deps.db.query('SELECT 1 FROM upstream_accounts WHERE group_id = $1', [groupId]);
    expect(count.rowCount).toBe(0);
    let thrown: unknown;
    try {
      await addUpstream(deps, {
        groupId,
        apiKey: 'sim-key',
        models: ['gpt-4.1'],
        verify: true,
        baseUrl: gateway.sim.url,
        provider: 'openai',
        ...input,
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UpstreamVerificationError);
    // Nothing saved, nothing billed.
    expect((await gateway.deps.db.query('SELECT 1 FROM upstream_accounts WHERE group_id = $1', [groupId])).rowCount).toBe(0);
    expect(await usageRows()).toBe(rows);
    return thrown as UpstreamVerificationError;
  }

  it('a wrong credential: refused naming the credential and the HTTP status, the key not echoed', async () => {
    const error = await refusal({ apiKey: 'wrong-key-123456' });
    expect(error.reason).toBe('credential');
    expect(error.message).toBe(
      'verification failed: the provider refused the credential (HTTP 401) when asked for its model list (/v1/models): check the API key',
    );
    expect((await refusal({ provider: 'gemini', models: ['gemini-2.5-flash'], apiKey: 'wrong' })).reason).toBe('credential');
    const azure = await refusal({ provider: 'azure-openai', apiKey: 'wrong' });
    expect(azure.reason).toBe('credential');
    expect(azure.message).not.toContain('wrong');
  });

  it('a known key without permission (HTTP 403): refused naming the credential and the status', async () => {
    const forbidden = { apiKey: 'sim-key.forbidden' };
    const openai = await refusal(forbidden);
    expect(openai.reason).toBe('credential');
    expect(openai.message).toBe(
      'verification failed: the provider refused the credential (HTTP 403) when asked for its model list (/v1/models): check the API key',
    );
    const anthropic = await refusal({ ...forbidden, provider: 'anthropic', models: ['claude-sonnet-4-5'] });
    expect(anthropic.message).toBe(
      'verification failed: the provider refused the credential (HTTP 403) when asked for its model list (/v1/models): check the API key',
    );
    const gemini = await refusal({ ...forbidden, provider: 'gemini', models: ['gemini-2.5-flash'] });
    expect(gemini.message).toBe(
      'verification failed: the provider refused the credential (HTTP 403) when asked for its model list (/v1beta/models): check the API key',
    );
    const azure = await refusal({ ...forbidden, provider: 'azure-openai' });
    expect(azure.message).toBe(
      'verification failed: the provider refused the credential (HTTP 403) when asked for a minimal call to gpt-4.1: check the API key',
    );
    expect(gateway.sim.requests.at(-1)!.status).toBe(403);
  });

  it('a wrong base URL or path: refused naming the base URL (404)', async () => {
    const error = await refusal({ baseUrl: `${gateway.sim.url}/api/openai` });
    expect(error.reason).toBe('base_url');
    expect(error.message).toBe(
      `verification failed: nothing found at ${gateway.sim.url}/api/openai for its model list (/api/openai/v1/models) (HTTP 404): check the base URL and the provider`,
    );
  });

  it('unreachable: connection refused, or a host that does not resolve', async () => {
    const refused = await refusal({ baseUrl: 'http://127.0.0.1:9' });
    expect(refused.reason).toBe('unreachable');
    expect(refused.message).toBe('verification failed: cannot reach http://127.0.0.1:9: connection refused');
    const dns = await refusal({ baseUrl: 'http://no-such-host.invalid' });
    expect(dns.reason).toBe('unreachable');
    // `.invalid` never resolves (RFC 6761): the failure is DNS, not a timeout.
    expect(dns.message).toBe('verification failed: cannot reach http://no-such-host.invalid: the host name does not resolve (DNS)');
    // Azure OpenAI, probed by a minimal call rather than a model list, words it the same way.
    expect((await refusal({ provider: 'azure-openai', baseUrl: 'http://127.0.0.1:9' })).message).toBe(
      'verification failed: cannot reach http://127.0.0.1:9: connection refused',
    );
    expect((await refusal({ provider: 'azure-openai', baseUrl: 'http://no-such-host.invalid' })).message).toBe(
      'verification failed: cannot reach http://no-such-host.invalid: the host name does not resolve (DNS)',
    );
  });

  describe('unreachable over TLS: named as TLS with its code', () => {
    const servers: https.Server[] = [];
    let certificates: TestCertificates;
    beforeAll(() => {
      certificates = makeTestCertificates();
    });
    afterAll(async () => {
      await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
    });

    async function httpsServer(options: https.ServerOptions): Promise<string> {
      const server = https.createServer(options, (_request, response) => {
        response.end('{"data":[]}');
      });
      servers.push(server);
      await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
      return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }
    const tlsRefusal = async (baseUrl: string, input: Partial<Parameters<typeof addUpstream>[1]> = {}) => {
      const error = await refusal({ baseUrl, ...input });
      expect(error.reason).toBe('unreachable');
      return error.message.replace(baseUrl, '<base URL>');
    };

    it('a self-signed certificate, for a model list and for Azure OpenAI (a minimal call) alike', async () => {
      const baseUrl = await httpsServer(certificates.selfSigned);
      expect(await tlsRefusal(baseUrl)).toBe('verification failed: cannot reach <base URL>: TLS failed (DEPTH_ZERO_SELF_SIGNED_CERT)');
      expect(await tlsRefusal(baseUrl, { provider: 'azure-openai' })).toBe(
        'verification failed: cannot reach <base URL>: TLS failed (DEPTH_ZERO_SELF_SIGNED_CERT)',
      );
    });

    it('a certificate whose issuer is unknown, alone or with its self-signed CA in the chain', async () => {
      const alone = await httpsServer(certificates.leaf);
      expect(await tlsRefusal(alone)).toBe('verification failed: cannot reach <base URL>: TLS failed (UNABLE_TO_VERIFY_LEAF_SIGNATURE)');
      const chained = await httpsServer({ key: certificates.leaf.key, cert: certificates.leaf.cert + certificates.ca.cert });
      expect(await tlsRefusal(chained)).toBe('verification failed: cannot reach <base URL>: TLS failed (SELF_SIGNED_CERT_IN_CHAIN)');
    });

    it('an https URL pointed at a plain http port', async () => {
      const baseUrl = gateway.sim.url.replace(/^http:/, 'https:');
      // OpenSSL names the garbage it read: ERR_SSL_WRONG_VERSION_NUMBER (or PACKET_LENGTH_TOO_LONG in some versions).
      expect(await tlsRefusal(baseUrl)).toMatch(/^verification failed: cannot reach <base URL>: TLS failed \(ERR_SSL_[A-Z_]+\)$/);
    });
  });

  it('a model the provider does not list, and a model missing from the catalog', async () => {
    const unlisted = await refusal({ models: ['gpt-4.1', 'veo-3'] });
    expect(unlisted.reason).toBe('model_not_listed');
    expect(unlisted.message).toMatch(/^verification failed: the provider does not list model veo-3 \(it lists \d+\)$/);
    const azure = await refusal({ provider: 'azure-openai', models: ['veo-3'] });
    expect(azure.message).toMatch(/HTTP 404 for deployment veo-3/);
    const missing = await refusal({ models: ['gpt-4o-nonexistent'] });
    expect(missing.reason).toBe('model_not_in_catalog');
    expect(missing.message).toBe(
      'verification failed: model gpt-4o-nonexistent is not in the catalog: add it first (admin model add) or name catalog models',
    );
  });

  it("the quick start's simulator accounts pass the same check (the console's Test button)", async () => {
    const accounts = await gateway.deps.db.query<{ id: string; provider: string }>(
      'SELECT id, provider FROM upstream_accounts WHERE provider = $1',
      ['simulator'],
    );
    expect(accounts.rowCount).toBeGreaterThan(4);
    for (const row of accounts.rows) {
      const probe = await checkStoredUpstream(deps, Number(row.id));
      expect({ id: row.id, probe }).toEqual({ id: row.id, probe: expect.objectContaining({ ok: true }) });
    }
  });

  it('--no-verify saves without asking the provider', async () => {
    const groupId = await newGroup();
    const before = gateway.sim.requests.length;
    const saved = await addUpstream(deps, {
      groupId,
      provider: 'openai',
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'k',
      models: ['gpt-4.1'],
      verify: false,
    });
    expect(saved.probe).toBeUndefined();
    expect(gateway.sim.requests.length).toBe(before);
  });
});
