/**
 * The OpenAPI document: valid OpenAPI 3.1 (checked by a real validator), served at /openapi.json,
 * and true to the running app: every documented operation reaches a route (no "no route" 404), and
 * every route the app registers (express's router stack plus the inference fast path, which bypasses
 * express) is documented.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { createApp, type GatewayApp } from '../../src/app';
import { buildOpenApiDocument } from '../../src/openapi/openapi-document';
import { createServices, type Services } from '../../src/services';
import { createTestDependencies, type TestDependencies } from '../support/dependencies';
import { ROOT } from './dist-processes';

jest.setTimeout(60_000);

/** Served by src/relay/inference-handler.ts before express sees the request. */
const FAST_PATH_ROUTES = [
  'POST /v1/messages',
  'POST /v1/responses',
  'POST /v1/responses/compact',
  'POST /v1/chat/completions',
  'POST /v1beta/models/{}:generateContent',
  'POST /v1beta/models/{}:streamGenerateContent',
  'POST /v1/models/{}:generateContent',
  'POST /v1/models/{}:streamGenerateContent',
];

/** Routes express registers with a regular expression, as the paths they serve. */
const REGEX_ROUTES: Record<string, string[]> = {
  [String(/^\/v1(?:beta)?\/models\/([^/]+):countTokens$/)]: ['/v1beta/models/{}:countTokens', '/v1/models/{}:countTokens'],
};

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
type Document = { paths: Record<string, Partial<Record<(typeof HTTP_METHODS)[number], unknown>>> };

let deps: TestDependencies;
let services: Services;
let app: GatewayApp;
let server: Server;
let url: string;
const document = buildOpenApiDocument('0.1.0') as unknown as Document;

beforeAll(async () => {
  deps = await createTestDependencies();
  services = createServices(deps);
  app = createApp(deps, services);
  server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await app.closeRoutes();
  await services.close();
  await deps.close();
});

/** `/v1/models/{model}` and `/v1/models/:model` both become `/v1/models/{}`. */
const normalize = (path: string) =>
  path
    .replace(/\{[^}]+\}/g, '{}')
    .replace(/\/\*[A-Za-z_][A-Za-z0-9_]*$/, '/{}')
    .replace(/\/:[A-Za-z_][A-Za-z0-9_]*/g, '/{}')
    .replace(/(.)\/$/, '$1');

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: string | string[];
}

function expressRoutes(stack: readonly Layer[], prefixes: readonly string[] = ['']): string[] {
  const routes: string[] = [];
  for (const layer of stack) {
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods).filter((m) => m !== '_all')) {
        const paths = REGEX_ROUTES[String(layer.route.path)] ?? [String(layer.route.path)];
        for (const prefix of prefixes) for (const path of paths) routes.push(`${method.toUpperCase()} ${normalize(prefix + path)}`);
      }
    } else if (layer.handle?.stack) {
      const mount =
        layer.rawPath === undefined || layer.rawPath === '/' ? [''] : Array.isArray(layer.rawPath) ? layer.rawPath : [layer.rawPath];
      routes.push(
        ...expressRoutes(
          layer.handle.stack,
          prefixes.flatMap((p) => mount.map((m) => p + m)),
        ),
      );
    }
  }
  return routes;
}

function documentedRoutes(): string[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    HTTP_METHODS.filter((method) => item[method] !== undefined).map((method) => `${method.toUpperCase()} ${normalize(path)}`),
  );
}

/** @seriousme/openapi-schema-validator is ESM only, which jest's CommonJS runtime cannot load: run it in node. */
const VALIDATE = `
import { Validator } from '@seriousme/openapi-schema-validator';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const validator = new Validator();
const result = await validator.validate(JSON.parse(input));
process.stdout.write(JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors ?? [] }));`;

function validate(spec: unknown): Promise<{ valid: boolean; version: string; errors: unknown[] }> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, ['--input-type=module', '-e', VALIDATE], { cwd: ROOT }, (error, stdout, stderr) => {
      if (error) reject(new Error(`validator failed: ${stderr}`));
      else resolve(JSON.parse(stdout) as { valid: boolean; version: string; errors: unknown[] });
    });
    child.stdin!.end(JSON.stringify(spec));
  });
}

it('is a valid OpenAPI 3.1 document', async () => {
  const result = await validate(document);
  expect(result.errors).toEqual([]);
  expect(result).toMatchObject({ valid: true, version: '3.1' });
});

it('the validator refuses a broken document (it can fail)', async () => {
  expect((await validate({ ...document, paths: { '/x': { get: { responses: 'nope' } } } })).valid).toBe(false);
});

it('is served at /openapi.json', async () => {
  const response = await fetch(`${url}/openapi.json`);
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual(document);
});

it('documents every route the app registers, the inference fast path included', () => {
  const router = (app as unknown as { router: { stack: Layer[] } }).router;
  const fromExpress = expressRoutes(router.stack);
  expect(fromExpress).toEqual(
    expect.arrayContaining(['GET /v1/models/{}', 'DELETE /api/v1/keys/{}', 'POST /v1/tasks/submit', 'GET /readyz']),
  );
  const registered = new Set([...fromExpress, ...FAST_PATH_ROUTES]);
  const documented = new Set(documentedRoutes());
  expect([...registered].filter((route) => !documented.has(route)).sort()).toEqual([]);
});

it('reaches a route for every documented operation (never the "no route" 404)', async () => {
  const unrouted: string[] = [];
  for (const route of documentedRoutes()) {
    const [method, path] = route.split(' ') as [string, string];
    const concrete = path.replace(/\{\}/g, 'x1');
    const response = await fetch(`${url}${concrete}`, {
      method,
      ...(method === 'GET' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }),
    });
    const body = await response.text();
    if (response.status === 404 && body.includes('no route for')) unrouted.push(route);
  }
  expect(unrouted).toEqual([]);
});
