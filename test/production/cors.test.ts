/**
 * CORS: preflights answered on inference and management routes, headers only for allowed origins,
 * credentials echoed only to a listed origin, a session cookie from any other origin not accepted,
 * and nothing at all when no origin is configured (the default).
 */
import { createConsoleSession, SESSION_COOKIE } from '../../src/auth/console-session';
import { createConsoleUser } from '../../src/process/seed';
import { startTestGateway, type TestGateway } from '../support/gateway';

jest.setTimeout(60_000);

const ALLOWED = 'https://app.example.com';
const EVIL = 'https://evil.example.net';
const ROUTES = [
  '/v1/messages',
  '/v1/chat/completions',
  '/v1/responses',
  '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
  '/v1/models',
  '/api/v1/keys',
  '/api/v1/me/account',
  '/v1/tasks/submit',
  '/v1/images/generations',
];

const preflight = (url: string, origin: string) =>
  fetch(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
  });

describe('with CORS_ALLOWED_ORIGINS set', () => {
  let gateway: TestGateway;
  let session: string;
  beforeAll(async () => {
    gateway = await startTestGateway({ env: { CORS_ALLOWED_ORIGINS: ALLOWED } });
    const userId = await createConsoleUser(gateway.deps.db, {
      accountId: gateway.accountId,
      email: 'cors@example.com',
      password: 'correct horse battery',
    });
    session = (await createConsoleSession(gateway.deps.db, userId, Date.now())).token;
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it.each(ROUTES)('answers the preflight of %s for an allowed origin', async (route) => {
    const response = await preflight(`${gateway.url}${route}`, ALLOWED);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
    expect(response.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
  });

  it('gives a refused origin no CORS header, in the preflight or the answer', async () => {
    const answer = await preflight(`${gateway.url}/v1/chat/completions`, EVIL);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    expect(answer.headers.get('access-control-allow-methods')).toBeNull();
    const models = await fetch(`${gateway.url}/v1/models`, { headers: { origin: EVIL, authorization: `Bearer ${gateway.key}` } });
    expect(models.status).toBe(200);
    expect(models.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('puts the CORS headers on inference answers (the fast path) and exposes the accounting headers', async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { origin: ALLOWED, authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(response.headers.get('access-control-expose-headers')).toContain('x-request-cost-credits');
    expect(response.headers.get('vary')).toContain('Origin');
    const refused = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { origin: ALLOWED, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });

  it('accepts a session cookie from the allowed origin or the same origin, never from another', async () => {
    const me = (origin?: string) =>
      fetch(`${gateway.url}/api/v1/me/account`, {
        headers: { cookie: `${SESSION_COOKIE}=${session}`, ...(origin ? { origin } : {}) },
      });
    expect((await me()).status).toBe(200);
    expect((await me(ALLOWED)).status).toBe(200);
    expect((await me(gateway.url)).status).toBe(200);
    const evil = await me(EVIL);
    expect(evil.status).toBe(401);
  });
});

describe('by default (no allowed origin)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('answers preflights without allowing anything and sends no CORS header', async () => {
    const answer = await preflight(`${gateway.url}/v1/messages`, ALLOWED);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    const models = await fetch(`${gateway.url}/v1/models`, { headers: { origin: ALLOWED, authorization: `Bearer ${gateway.key}` } });
    expect(models.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('with a wildcard', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ env: { CORS_ALLOWED_ORIGINS: '*' } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('lets any origin read answers but never allows credentials', async () => {
    const answer = await preflight(`${gateway.url}/v1/responses`, EVIL);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
  });
});
