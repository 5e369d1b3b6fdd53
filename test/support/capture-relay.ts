/**
 * The relay's native pass-through path (`relayStream` / `relayComplete` of src/relay with
 * `passThrough: true`) run for real inside an Express app on a loopback port, with a recorded
 * capture standing in for the upstream answer: the client is a plain HTTP request that reads the
 * exact bytes the gateway wrote, and the relay's billing record (the usage event it settles) is
 * kept. Only the collaborators the relay reaches on this path are faked (admission ticket, usage
 * recorder, key-invalidation feed, responses store); the code under test is the relay's own.
 */
import { ALLOW_EVERY_MODEL } from '../../src/auth/model-allowlist';
import { Readable } from 'node:stream';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { AuthenticatedKey } from '../../src/auth/authenticated-key';
import type { KeyAuthenticator } from '../../src/auth/key-authenticator';
import type { UsageEvent } from '../../src/billing/usage-event';
import { DEFAULT_CATALOG } from '../../src/catalog/default-catalog';
import type { Dependencies } from '../../src/dependencies';
import { createLogger } from '../../src/http/logger';
import { createMetrics } from '../../src/http/metrics';
import type { Protocol } from '../../src/ir/protocol';
import type { IrRequest } from '../../src/ir/request';
import type { AdmittedCall } from '../../src/billing/run-paid-call';
import type { GatewayAdmission } from '../../src/limits/create-admission';
import type { AttemptOutcome } from '../../src/relay/attempt-outcome';
import { relayComplete } from '../../src/relay/relay-complete';
import type { RelayPlan } from '../../src/relay/relay-plan';
import type { RelayServices } from '../../src/relay/relay-services';
import { relayStream } from '../../src/relay/relay-stream';
import type { PreparedUpstreamCall } from '../../src/relay/upstream-request';
import type { UpstreamClient, UpstreamResponse } from '../../src/upstream/upstream-client';
import type { UpstreamDirectory } from '../../src/upstream/upstream-directory';
import { deterministicContext } from './sdk-responses';

export interface PassThroughCase {
  protocol: Protocol;
  stream: boolean;
  /** The upstream's answer body, handed to the relay in these pieces (UTF-8 bytes cut anywhere). */
  upstreamPieces: readonly Buffer[];
  /** Chat: whether the client asked for the usage chunk (`stream_options.include_usage`). */
  includeUsage?: boolean;
}

export interface PassThroughResult {
  status: number;
  contentType: string | null;
  /** Exactly what the client read. */
  body: string;
  outcome: AttemptOutcome | 'threw';
  /** What the relay billed (absent when the call was free). */
  usageEvents: UsageEvent[];
  released: boolean;
}

export interface PassThroughRelay {
  run(testCase: PassThroughCase): Promise<PassThroughResult>;
  close(): Promise<void>;
}

const KEY: AuthenticatedKey = {
  keyId: 1,
  accountId: 1,
  accountKind: 'user',
  tier: 'pro',
  concurrencyCap: 10,
  groupId: 1,
  groupName: 'default',
  groupFamily: null,
  status: 'active',
  expiresAt: null,
  quotaCredits: 0,
  rateLimits: { fiveHours: 0, oneDay: 0, sevenDays: 0 },
  ipWhitelist: [],
  ipBlacklist: [],
  secretHmac: 'capture-key',
  allowedModels: ALLOW_EVERY_MODEL,
};

function catalogModel(protocol: Protocol) {
  const model = DEFAULT_CATALOG.find((entry) => entry.kind === 'chat' && !entry.retired && entry.nativeProtocols.includes(protocol));
  if (model === undefined) throw new Error(`no catalog model speaks ${protocol} natively`);
  return model;
}

/** An undici-like body: a byte stream the relay reads with `setEncoding` + iteration, or `.text()`. */
function upstreamBody(pieces: readonly Buffer[]): UpstreamResponse['body'] {
  let next = 0;
  // One piece per read, a one-byte high-water mark, and each piece on a turn of its own, as a socket
  // delivers them: the relay sees the pieces as separate reads instead of one buffered whole. (Pushed
  // synchronously, the whole stream ran in one chain of microtasks; on Node 26 the relay's response
  // then stalled on a drain that never came, which no socket-fed stream reproduces.)
  const readable = new Readable({
    highWaterMark: 1,
    read() {
      setImmediate(() => this.push(next < pieces.length ? pieces[next++] : null));
    },
  });
  const text = async (): Promise<string> => Buffer.concat(pieces).toString('utf8');
  // The relay only uses the stream interface and `.text()` of undici's BodyReadable.
  return Object.assign(readable, { text }) as unknown as UpstreamResponse['body'];
}

export async function startPassThroughRelay(): Promise<PassThroughRelay> {
  const logger = createLogger('silent');
  const deps = {
    config: { streamKeepaliveMs: 60_000, leaseTtlMs: 60_000 },
    logger,
    metrics: createMetrics(),
    clock: { now: () => Date.now() },
  } as unknown as Dependencies; // the pass-through path reads only these four
  interface Run {
    testCase: PassThroughCase;
    usageEvents: UsageEvent[];
    released: boolean;
    outcome?: AttemptOutcome | 'threw';
    finished: () => void;
  }
  let current: Run | undefined;

  const app = express();
  app.post('/relay', (_request, res) => {
    const run = current;
    if (run === undefined) {
      res.status(500).end();
      return;
    }
    const { testCase } = run;
    const model = catalogModel(testCase.protocol);
    const context = deterministicContext();
    const request: IrRequest = {
      model: model.id,
      system: [],
      turns: [{ role: 'user', parts: [{ type: 'text', text: 'capture' }] }],
      tools: [],
      builtinTools: [],
      sampling: {},
      stream: testCase.stream,
      includeUsage: testCase.includeUsage ?? true,
      store: false,
    };
    const admitted: AdmittedCall = { requestId: 'req_capture', headers: () => ({}), heartbeat: async () => undefined };
    const plan: RelayPlan = {
      protocol: testCase.protocol,
      requestId: 'req_capture',
      startedAt: 0,
      key: KEY,
      model,
      rawBody: {},
      request,
      warnings: [],
      stream: testCase.stream,
      streamOptions: { model: model.id, includeUsage: request.includeUsage, sse: true, request, responseId: 'resp_capture' },
      context,
      admitted,
      inputEstimate: 1,
      betaQuery: false,
      passThroughAllowed: true,
    };
    const call: PreparedUpstreamCall = {
      account: {
        id: 7,
        groupId: 1,
        name: 'capture',
        protocol: testCase.protocol,
        baseUrl: 'http://127.0.0.1:9',
        credential: 'x',
        models: ['*'],
        priority: 0,
        weight: 1,
      },
      passThrough: true,
      url: 'http://127.0.0.1:9/capture',
      headers: {},
      body: '{}',
      decodeContext: { ...context, toolNames: {} },
    };
    const services: RelayServices = {
      authenticator: {
        authenticate: async () => KEY,
        onInvalidated: () => () => undefined,
        invalidate: async () => undefined,
      } satisfies KeyAuthenticator,
      admission: {} as GatewayAdmission,
      usage: { record: async () => undefined },
      upstreams: {} as UpstreamDirectory,
      upstreamClient: {} as UpstreamClient,
      responses: { save: async () => undefined, load: async () => ({ system: [], turns: [] }) },
    };
    const response: UpstreamResponse = { status: 200, headers: {}, body: upstreamBody(testCase.upstreamPieces) };
    const relay = testCase.stream ? relayStream : relayComplete;
    relay(plan, call, response, res, new AbortController(), () => false, deps, services).then(
      async (outcome) => {
        run.outcome = outcome;
        // The pipeline's part (runPaidCall): record the charge and deliver, or release.
        if (outcome.kind === 'end' && outcome.ending.kind === 'settle') {
          if (outcome.ending.charge.usage) run.usageEvents.push(outcome.ending.charge.usage);
          await outcome.ending.deliver?.({});
        } else if (outcome.kind === 'end') {
          run.released = true;
        }
        // A failure before the first byte is the attempt loop's to fail over; here it ends the test request.
        if (!res.headersSent) res.status(599).end();
        run.finished();
      },
      () => {
        run.outcome = 'threw';
        if (!res.headersSent) res.status(598).end();
        else res.end();
        run.finished();
      },
    );
  });
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/relay`;

  return {
    async run(testCase) {
      let finished = (): void => undefined;
      // The relay bills after the client's last byte: wait for it to return, not only for the body.
      const relayReturned = new Promise<void>((resolve) => {
        finished = resolve;
      });
      const run: Run = { testCase, usageEvents: [], released: false, finished: () => finished() };
      current = run;
      const answer = await fetch(url, { method: 'POST' });
      const body = await answer.text();
      await relayReturned;
      current = undefined;
      return {
        status: answer.status,
        contentType: answer.headers.get('content-type'),
        body,
        outcome: run.outcome ?? 'threw',
        usageEvents: run.usageEvents,
        released: run.released,
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
