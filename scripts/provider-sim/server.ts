/**
 * The provider simulator: one `node:http` server faking every upstream API under one base URL.
 * `startSimulator()` runs it in-process (tests, port 0 by default); `main.ts` runs it from the CLI.
 * Plain node:http and no per-request logging, because benchmarks drive it at thousands of requests/s.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BoundedMap } from './bounded-map';
import { headerNumber, isFaultMode, splitModelFault, stripControlPrefixes, type FaultMode, type RequestControls } from './faults';
import { randomId } from './ids';
import { isRecord } from './json';
import { ModelRegistry } from './models';
import { RequestLog, type SimRequestLog } from './request-log';
import { findRoute, type Route, type RouteBody } from './routes';
import { anthropicError, googleError, openaiError, SimHttpError, statusFaultError, type ErrorFamily } from './sim-error';
import { PromptCache } from './answer/prompt-cache';
import { PngCache } from './images/png';
import { authenticate } from './http/authenticate';
import type { SimContext, SimState } from './http/context';
import { readBody } from './http/read-body';
import { sendError } from './http/send';
import { sleep } from './http/sleep';
import { boundaryOf, parseMultipart, type MultipartForm } from './images/parse-multipart';

export type { SimRequestLog } from './request-log';

export interface SimulatorOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** The one credential every protocol accepts. Default `sim-key`. */
  apiKey?: string;
  /** Time to first token of every stream (and wait before every non-stream answer). */
  ttftMs?: number;
  /** Delay between stream chunks. */
  chunkDelayMs?: number;
  /** How long a video operation runs before it is done. Default 3000. */
  videoMs?: number;
  /** Latency of image generation. */
  imageMs?: number;
  /** Request log entries kept (the oldest are dropped past it). Default 10,000. */
  logLimit?: number;
}

export interface Simulator {
  url: string;
  port: number;
  /** Live log of what the simulator received, oldest first. */
  requests: SimRequestLog[];
  clearRequests(): void;
  close(): Promise<void>;
}

const BODY_LIMIT = 64 * 1024 * 1024;
const SLOW_FIRST_BYTE_MS = 2000;
const STORE_LIMIT = 10_000;

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const closing = new AbortController();
  const state: SimState = {
    options: {
      apiKey: options.apiKey ?? 'sim-key',
      ttftMs: options.ttftMs ?? 0,
      chunkDelayMs: options.chunkDelayMs ?? 0,
      videoMs: options.videoMs ?? 3000,
      imageMs: options.imageMs ?? 0,
    },
    baseUrl: '',
    models: new ModelRegistry(),
    promptCache: new PromptCache(100_000),
    pngs: new PngCache(),
    responses: new BoundedMap(STORE_LIMIT),
    responseItemIds: new BoundedMap(STORE_LIMIT * 4),
    videoOperations: new BoundedMap(STORE_LIMIT),
    images: new BoundedMap(256),
    closing: closing.signal,
  };
  const log = new RequestLog(options.logLimit ?? 10_000);
  const server = createServer((request, response) => {
    handleRequest(state, log, request, response).catch((error: unknown) => {
      // Only a bug gets here; the simulator must outlive it.
      process.stderr.write(`provider-sim: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      if (!response.headersSent && !response.destroyed) response.writeHead(500).end();
    });
  });
  // Longer than clients' keep-alive, so a reused idle socket is never closed under a request.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  state.baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url: state.baseUrl,
    port,
    requests: log.entries,
    clearRequests: () => log.clear(),
    close: async () => {
      closing.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

async function handleRequest(state: SimState, log: RequestLog, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const rawPath = request.url ?? '/';
  const queryStart = rawPath.indexOf('?');
  const pathname = queryStart < 0 ? rawPath : rawPath.slice(0, queryStart);
  const search = queryStart < 0 ? '' : rawPath.slice(queryStart);
  const stripped = stripControlPrefixes(pathname);
  const method = request.method ?? 'GET';

  if (stripped.path.startsWith('/_sim/')) {
    handleInternal(log, method, stripped.path, response);
    return;
  }
  const route = findRoute(method, stripped.path, request.headers['anthropic-version'] !== undefined);
  const family: ErrorFamily = route?.family ?? (stripped.path.startsWith('/v1beta') ? 'google' : 'openai');
  const headerFault = headerText(request.headers['x-sim-fault']);
  const explicitTtft = headerNumber(request.headers['x-sim-ttft-ms']) ?? stripped.ttftMs;
  const controls: RequestControls = {
    fault: headerFault !== undefined && isFaultMode(headerFault) ? headerFault : stripped.fault,
    ttftMs: explicitTtft ?? state.options.ttftMs,
    chunkDelayMs: headerNumber(request.headers['x-sim-chunk-delay-ms']) ?? stripped.chunkDelayMs ?? state.options.chunkDelayMs,
    explicitTtftMs: explicitTtft,
  };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    const text = headerText(value);
    if (text !== undefined) headers[name] = text;
  }
  const entry: SimRequestLog = {
    id: log.nextRequestId(),
    method,
    path: stripped.path + search,
    rawPath,
    headers,
    body: null,
    protocol: route?.protocol ?? 'unknown',
    model: route?.pathModel ?? null,
    stream: route?.pathStream ?? false,
    fault: controls.fault,
    latency: { ttftMs: controls.ttftMs, chunkDelayMs: controls.chunkDelayMs },
    status: null,
    aborted: false,
    completed: false,
    startedAt: Date.now(),
  };
  log.add(entry);
  const context: SimContext = {
    state,
    request,
    response,
    path: stripped.path,
    query: new URLSearchParams(search),
    controls,
    log: entry,
    family,
    defaultHeaders: defaultHeadersOf(family),
    credential: '',
    serverCut: false,
  };
  response.on('finish', () => {
    entry.completed = true;
  });
  response.on('close', () => {
    if (!entry.completed && !context.serverCut) entry.aborted = true;
  });

  try {
    if (route === null) throw notFound(family, method, stripped.path);
    const body = await readRouteBody(context, route);
    if (body === null) return;
    const model = modelOf(route, body);
    entry.model = model.raw;
    if (route.pathStream === false && body.kind === 'json' && isRecord(body.value)) entry.stream = body.value.stream === true;
    if (route.authenticated) authenticate(context, route.auth);
    if (controls.fault === null) controls.fault = model.fault;
    entry.fault = controls.fault;
    if (!(await applyEarlyFault(context, controls.fault))) return;
    // A whole answer arrives after the time to first token; streams wait for it in the writer.
    if (!entry.stream && !(await sleep(controls.ttftMs, state.closing))) return;
    await route.run(context, body, model.name);
  } catch (error) {
    if (error instanceof SimHttpError) {
      sendError(context, error);
      return;
    }
    // Only a simulator bug gets here: say so on stderr, answer like a failing provider.
    process.stderr.write(`provider-sim: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    sendError(context, statusFaultError(family, 500));
  }
}

function handleInternal(log: RequestLog, method: string, path: string, response: ServerResponse): void {
  if (path === '/_sim/requests' && method === 'GET') {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(log.entries));
  } else if (path === '/_sim/requests' && method === 'DELETE') {
    log.clear();
    response.writeHead(204).end();
  } else if (path === '/_sim/health') {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  } else {
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"unknown simulator endpoint"}');
  }
}

function defaultHeadersOf(family: ErrorFamily): Record<string, string> {
  switch (family) {
    case 'anthropic':
      return { 'request-id': `req_011${randomId(21)}` };
    case 'openai':
      return { 'x-request-id': `req_${randomId(32, 'lower36')}` };
    case 'google':
      return {};
  }
}

function notFound(family: ErrorFamily, method: string, path: string): SimHttpError {
  switch (family) {
    case 'anthropic':
      return anthropicError(404, 'not_found_error', 'Not Found');
    case 'openai':
      return openaiError(404, `Invalid URL (${method} ${path})`);
    case 'google':
      return googleError(404, `Method not found: ${method} ${path}`, 'NOT_FOUND');
  }
}

/** Reads and parses the body the route expects; null when the client went away meanwhile. */
async function readRouteBody(context: SimContext, route: Route): Promise<RouteBody | null> {
  if (route.body === 'none') return { kind: 'none' };
  let raw: Buffer | 'too-large';
  try {
    raw = await readBody(context.request, BODY_LIMIT);
  } catch {
    return null;
  }
  if (raw === 'too-large') throw bodyTooLarge(context.family);
  if (route.body === 'multipart') {
    const boundary = boundaryOf(context.request.headers['content-type']);
    const form: MultipartForm | null = boundary === null ? null : parseMultipart(raw, boundary);
    context.log.body =
      form === null
        ? null
        : {
            fields: form.fields,
            files: form.files.map((file) => ({
              field: file.field,
              filename: file.filename,
              contentType: file.contentType,
              size: file.data.length,
            })),
          };
    return { kind: 'multipart', value: form };
  }
  let value: unknown;
  try {
    value = raw.length === 0 ? undefined : JSON.parse(raw.toString('utf8'));
  } catch {
    throw invalidJson(context.family);
  }
  context.log.body = value ?? null;
  return { kind: 'json', value };
}

function modelOf(route: Route, body: RouteBody): { raw: string | null; name: string; fault: FaultMode | null } {
  let raw: string | null = route.pathModel;
  if (raw === null && body.kind === 'json' && isRecord(body.value) && typeof body.value.model === 'string') raw = body.value.model;
  if (raw === null && body.kind === 'multipart' && body.value !== null) raw = body.value.fields.model ?? null;
  if (raw === null) return { raw: null, name: '', fault: null };
  const { model, fault } = splitModelFault(raw);
  return { raw, name: model, fault };
}

/** Faults that act before any answer. Returns false when the request must not be answered further. */
async function applyEarlyFault(context: SimContext, fault: FaultMode | null): Promise<boolean> {
  switch (fault) {
    case '429':
    case '500':
    case '503':
    case '529':
      sendError(context, statusFaultError(context.family, Number(fault) as 429 | 500 | 503 | 529));
      return false;
    case 'hang':
      // Accepted, never answered: the connection stays open until the client gives up.
      return false;
    case 'slow-first-byte': {
      const waited = await sleep(context.controls.explicitTtftMs ?? SLOW_FIRST_BYTE_MS, context.state.closing);
      context.controls.ttftMs = 0;
      return waited && !context.response.destroyed;
    }
    case 'error-event':
      // Without a stream there is no event to send: the request fails as overloaded instead.
      if (!context.log.stream) {
        sendError(context, statusFaultError(context.family, context.family === 'anthropic' ? 529 : 503));
        return false;
      }
      return true;
    default:
      return true;
  }
}

function invalidJson(family: ErrorFamily): SimHttpError {
  switch (family) {
    case 'anthropic':
      return anthropicError(400, 'invalid_request_error', 'There was an error parsing the body of your request');
    case 'openai':
      return openaiError(
        400,
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
      );
    case 'google':
      return googleError(400, 'Invalid JSON payload received. Unexpected token.', 'INVALID_ARGUMENT');
  }
}

function bodyTooLarge(family: ErrorFamily): SimHttpError {
  switch (family) {
    case 'anthropic':
      return anthropicError(413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.');
    case 'openai':
      return openaiError(413, 'Request too large.');
    case 'google':
      return googleError(400, 'Request payload size exceeds the limit.', 'INVALID_ARGUMENT');
  }
}
