/**
 * The four inference protocols (interface section 4): authenticate per the protocol's rules, decode
 * to the IR, resolve the model and its gates, admit (limits and money), then relay. Errors render in
 * the caller's protocol envelope with the accounting headers.
 *
 * Served on node's own request and response, ahead of express (DESIGN 10): express's per-request
 * set-up, router and body parser cost more than the rest of a pass-through together. Everything the
 * express routes gave these requests is done here: request id, access log and metrics, JSON body,
 * error rendering. Any other method or path is left to the express app.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery, type ParsedUrlQuery } from 'node:querystring';
import { IpRuleRefusal } from '../auth/ip-refusal';
import { createClientIpResolver } from '../auth/client-ip';
import { extractCredential } from '../auth/extract-credential';
import type { AuthenticatedKey } from '../auth/authenticated-key';
import { runPaidCall, type AdmittedCall, type PaidCallServices } from '../billing/run-paid-call';
import type { Dependencies } from '../dependencies';
import { failedDependency } from '../errors/dependency-failure';
import { GatewayError, isGatewayError } from '../errors/gateway-error';
import { observeRequest, type RequestObserver } from '../http/access-log';
import { renderThrown, type ErrorRenderers } from '../http/error-middleware';
import { jsonBody } from '../http/json-body';
import { readJsonBody } from '../http/read-json-body';
import { locals, noteCaller, noteCharge, type RequestFacts } from '../http/request-context';
import { assignRequestId } from '../http/request-id';
import { beginTrace, endHandlerTrace, markTrace, type Tracer } from '../http/request-trace';
import { estimateInputTokens, estimateReservationCredits } from '../billing/estimate-reservation';
import { CODECS } from './codec-registry';
import { createCodecContext } from './codec-context';
import type { IrRequest } from '../ir/request';
import type { RouteFacts } from '../protocols/codec';
import { createOpaqueIdStore, type PreloadingOpaqueIdStore } from './opaque-id-store';
import type { RelayPlan } from './relay-plan';
import type { RelayServices } from './relay-services';
import { checkCapabilities, resolveModel } from './resolve-model';
import { lookUpRouting } from './choose-accounts';
import { runRelay } from './run-relay';
import { applyCorsHeaders } from '../http/cors';
import { routeOf, WEBSOCKET_ROUTE, type ServedRoute } from './inference-routes';
import { PLAIN_ROUTE } from '../protocols/shared/wire-frames';

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function queryValue(query: ParsedUrlQuery, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[0] : value;
}

export interface InferenceHandler {
  /** Serves the request if it is an inference call (true), else leaves it untouched (false). */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /**
   * A Responses WebSocket message: its body served like a `POST /v1/responses` of it, authenticated
   * by the upgrade request's headers, on `res` (the turn's sink). Resolves once the answer is written.
   */
  serveMessage(upgrade: IncomingMessage, res: ServerResponse, body: Record<string, unknown>): Promise<void>;
}

/** What every inference request is served with: built once per process by createInferenceHandler. */
interface InferenceScope {
  deps: Dependencies;
  services: RelayServices;
  renderers: ErrorRenderers;
  tracer?: Tracer;
  observer?: RequestObserver;
  /** Ids too long for the clients' limits are kept here; loaded for a request before it is decoded. */
  opaqueIds: PreloadingOpaqueIdStore;
  context: ReturnType<typeof createCodecContext>;
  clientIp: ReturnType<typeof createClientIpResolver>;
  /** Compressed or non-UTF-8 bodies still go through body-parser, as before. */
  bodyFallback: ReturnType<typeof jsonBody>;
  paid: PaidCallServices;
  /** Each protocol's compaction key (only Responses compacts today), derived once. */
  compactionKeys: Map<string, Buffer>;
}

/** What a request's body said, decoded and checked before admission. */
interface PreparedCall {
  request: IrRequest;
  model: ReturnType<typeof resolveModel>;
  warnings: RelayPlan['warnings'];
  clientHeaders: RelayPlan['clientHeaders'];
  routeFacts: RouteFacts;
  rawBody: Record<string, unknown>;
  opened: number;
  compaction: 'compact' | 'trigger' | undefined;
}

function renderFailure(scope: InferenceScope, error: unknown, path: string, res: ServerResponse): void {
  endHandlerTrace(res, 'failed');
  try {
    renderThrown(scope.deps.logger, scope.renderers, error, path, res);
  } catch (renderError) {
    // Never an unhandled rejection: the connection can only be dropped.
    scope.deps.logger.error({ requestId: locals(res).requestId, err: renderError }, 'could not render an error');
    res.destroy();
  }
}

async function withHeaders<T>(scope: InferenceScope, key: AuthenticatedKey, res: ServerResponse, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    // A refusal because Redis is away (a failover) goes out at once: a peek would wait on Redis again.
    if (isGatewayError(error) && !locals(res).accountingHeaders && failedDependency(error) !== 'redis') {
      locals(res).accountingHeaders = await scope.services.admission.peekHeaders(key, locals(res).surface).catch(() => ({}));
    }
    throw error;
  }
}

/** The caller's key, per the protocol's credential locations; a refusal carries its accounting headers. */
async function authenticateCaller(
  scope: InferenceScope,
  route: ServedRoute,
  query: ParsedUrlQuery,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<{ key: AuthenticatedKey; callerIp: string }> {
  const { protocol, codec } = route;
  const secret = extractCredential(codec.inbound.credentials, req.headers, query);
  if (!secret) throw new GatewayError('authentication', codec.inbound.missingCredentialMessage);
  const callerIp = scope.clientIp(req.socket.remoteAddress, header(req, 'x-forwarded-for'));
  const key = await scope.services.authenticator.authenticate(secret, callerIp).catch(async (error: unknown) => {
    // A refusal by the key's IP rules carries its accounting headers, like admission's refusals.
    if (error instanceof IpRuleRefusal) noteCaller(res, error.key, protocol);
    if (error instanceof IpRuleRefusal)
      locals(res).accountingHeaders = await scope.services.admission.peekHeaders(error.key, protocol).catch(() => ({}));
    throw error;
  });
  return { key, callerIp };
}

/** Decodes the body to the IR and resolves its model and gates; what the request asked for is noted as it becomes known. */
function prepareCall(
  scope: InferenceScope,
  route: ServedRoute,
  path: string,
  query: ParsedUrlQuery,
  req: IncomingMessage,
  body: unknown,
  key: AuthenticatedKey,
  facts: RequestFacts,
): PreparedCall {
  const { protocol, codec } = route;
  const inbound = codec.inbound;
  const compacting = inbound.compaction;
  const compactionKey = compacting ? scope.compactionKeys.get(protocol) : undefined;
  inbound.checkClientHeaders?.(req.headers);
  const clientHeaders = inbound.readClientHeaders?.(req.headers);
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new GatewayError('invalid_request', 'request body must be a JSON object');
  }
  // The model asked for, recorded even when the body is refused.
  const asked = (body as { model?: unknown }).model;
  if (typeof asked === 'string') facts.model = asked;
  const decoded = inbound.decodeRequest(body, scope.context);
  const request = decoded.request;
  const routeFacts = inbound.readRoute?.(request, path, query) ?? PLAIN_ROUTE;
  facts.model = request.model;
  facts.stream = request.stream;
  const model = resolveModel(scope.deps.catalog, request.model, protocol, key);
  facts.model = model.id;
  const warnings = [...decoded.warnings, ...checkCapabilities(model, request, inbound.maxTokensField)];
  // Remote compaction (issue 25): the gateway's own compaction items become their summary again.
  const rawBody = body as Record<string, unknown>;
  const opened = compacting && compactionKey ? compacting.openItems(request, compactionKey, key.accountId) : 0;
  const compaction = !compacting
    ? undefined
    : route.endpoint === 'compact'
      ? ('compact' as const)
      : compacting.hasTrigger(rawBody)
        ? ('trigger' as const)
        : undefined;
  return { request, model, warnings, clientHeaders, routeFacts, rawBody, opened, compaction };
}

/** The relay's plan for an admitted call (a chained Responses call has its stored turns by now). */
function relayPlanOf(
  scope: InferenceScope,
  route: ServedRoute,
  query: ParsedUrlQuery,
  req: IncomingMessage,
  res: ServerResponse,
  call: {
    prepared: PreparedCall;
    key: AuthenticatedKey;
    startedAt: number;
    admitted: AdmittedCall;
    bodyBytes: number;
    passThroughAllowed: boolean;
    routing: RelayPlan['routing'];
  },
): RelayPlan {
  const { protocol, codec } = route;
  const compacting = codec.inbound.compaction;
  const compactionKey = compacting ? scope.compactionKeys.get(protocol) : undefined;
  const { request, model, warnings, clientHeaders, routeFacts, rawBody, compaction } = call.prepared;
  const context = scope.context;
  const clientStream = request.stream;
  const plan: RelayPlan = {
    protocol,
    requestId: locals(res).requestId,
    startedAt: call.startedAt,
    key: call.key,
    model,
    rawBody,
    request: compaction && compacting ? compacting.summaryRequest(request) : request,
    warnings,
    stream: compaction ? false : request.stream,
    streamOptions: {
      model: model.id,
      includeUsage: request.includeUsage,
      sse: routeFacts.sse,
      request,
      responseId: codec.inbound.storedAnswerIdPrefix === undefined ? undefined : context.newId(codec.inbound.storedAnswerIdPrefix),
    },
    context,
    admitted: call.admitted,
    inputEstimate: estimateInputTokens(call.bodyBytes, model.contextWindow),
    clientHeaders,
    requestHeaders: req.headers,
    passThroughHeaders: codec.passThroughHeaders(req.headers),
    betaQuery: queryValue(query, 'beta') === 'true',
    passThroughAllowed: call.passThroughAllowed,
    routing: call.routing,
    ...(compaction === 'compact' ? { endpoint: 'compact' as const } : {}),
  };
  if (compaction && compacting && compactionKey) {
    plan.encodeAnswer = (ir) =>
      compacting.encodeAnswer(ir, {
        endpoint: compaction,
        stream: clientStream,
        key: compactionKey,
        accountId: call.key.accountId,
        streamOptions: plan.streamOptions,
        context,
      });
  }
  return plan;
}

async function serve(
  scope: InferenceScope,
  route: ServedRoute,
  path: string,
  query: ParsedUrlQuery,
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody?: Record<string, unknown>,
): Promise<void> {
  const { deps, services } = scope;
  const startedAt = deps.clock.now();
  const body = parsedBody ?? (await readJsonBody(req, res, deps.config.maxBodyBytes, scope.bodyFallback));
  markTrace(res, 'read');
  const protocol = route.protocol;
  const inbound = route.codec.inbound;
  const { key, callerIp } = await authenticateCaller(scope, route, query, req, res);
  if (inbound.carriesOpaqueIds) await scope.opaqueIds.preload(body);
  markTrace(res, 'authenticated');
  const facts = noteCaller(res, key, protocol);
  if (facts.keepBodies) facts.requestBody = locals(res).bodyText ?? body;

  const prepared = await withHeaders(scope, key, res, () => prepareCall(scope, route, path, query, req, body, key, facts));
  const { request, model, routeFacts, rawBody, opened, compaction } = prepared;
  markTrace(res, 'decoded');
  const bodyBytes = Number(req.headers['content-length'] ?? 0) || JSON.stringify(rawBody).length;
  const reserveCredits = estimateReservationCredits({
    model,
    bodyBytes,
    requestedMaxOutputTokens: request.sampling.maxOutputTokens,
    maxReservedOutputTokens: deps.config.reservationMaxOutputTokens,
  });
  const admission = { key, clientIp: callerIp, requestId: locals(res).requestId, reserveCredits, takesLease: true, surface: protocol };
  // The codec says when a body may go upstream as it is (Responses: nothing stored, nothing chained).
  // A compact call passes through to a native compact endpoint; a compaction trigger is always the
  // gateway's own; a body holding the gateway's compaction items cannot go upstream as it is.
  const passThroughAllowed =
    opened === 0 && compaction !== 'trigger' && (compaction === 'compact' || inbound.canPassThrough(request, routeFacts));
  // Routing's lookups (a Redis read for the session) run beside admission's script; a chained
  // Responses call is routed once its stored turns are known.
  const routing =
    request.previousResponseId === undefined
      ? lookUpRouting(
          { protocol, requestId: locals(res).requestId, key, model, rawBody, request, passThroughAllowed, requestHeaders: req.headers },
          deps,
          services,
        )
      : undefined;
  routing?.catch(() => undefined); // awaited by the relay; a refused admission leaves it unread
  await runPaidCall(
    scope.paid,
    admission,
    async (admitted) => {
      if (request.previousResponseId !== undefined) {
        const stored = await services.responses.load(request.previousResponseId, key.accountId);
        request.turns = [...stored.turns, ...request.turns];
        request.previousResponseId = undefined;
      }
      const plan = relayPlanOf(scope, route, query, req, res, {
        prepared,
        key,
        startedAt,
        admitted,
        bodyBytes,
        passThroughAllowed,
        routing,
      });
      if (request.metadata?.user_id) deps.logger.info({ requestId: plan.requestId, userId: request.metadata.user_id }, 'metadata.user_id');
      const ending = await runRelay(plan, res, deps, services);
      facts.warnings = plan.warnings;
      if (ending.kind === 'settle' && ending.charge.usage) noteCharge(res, ending.charge.usage);
      // A whole answer's record rides in its settlement (built then, with the usage just noted).
      if (ending.kind === 'settle' && ending.deliver) ending.rider = locals(res).riderAtSettlement;
      return ending;
    },
    (admitted) => {
      markTrace(res, 'admitted');
      locals(res).accountingHeaders = admitted.headers();
    },
  );
  endHandlerTrace(res, 'settled'); // a whole answer was settled before it was written (marked there)
}

/** Serves the request if it is an inference call (true), else leaves it untouched (false). */
function handleInference(scope: InferenceScope, req: IncomingMessage, res: ServerResponse): boolean {
  const url = req.url ?? '';
  if (req.method !== 'POST' || url.charCodeAt(0) !== 47 /* '/' */) return false;
  const queryStart = url.indexOf('?');
  const path = queryStart < 0 ? url : url.slice(0, queryStart);
  const route = routeOf(path);
  if (route === undefined) return false;
  const { deps } = scope;
  const protocol = route.protocol;
  beginTrace(scope.tracer, res);
  assignRequestId(res);
  applyCorsHeaders(deps.config.corsAllowedOrigins, req, res);
  locals(res).surface = protocol;
  locals(res).routeLabel = protocol;
  observeRequest(deps.logger, deps.metrics, req, res, () => protocol, scope.observer);
  // express 5's default ("simple") query parser is node's querystring.
  const query = queryStart < 0 ? {} : parseQuery(url.slice(queryStart + 1));
  serve(scope, route, path, query, req, res).catch((error: unknown) => renderFailure(scope, error, path, res));
  return true;
}

/** A Responses WebSocket message, served like a `POST /v1/responses` of its body. */
async function serveWebSocketMessage(
  scope: InferenceScope,
  upgrade: IncomingMessage,
  res: ServerResponse,
  body: Record<string, unknown>,
): Promise<void> {
  assignRequestId(res);
  locals(res).surface = 'responses';
  locals(res).routeLabel = 'responses-websocket';
  observeRequest(scope.deps.logger, scope.deps.metrics, upgrade, res, () => 'responses-websocket');
  await serve(scope, WEBSOCKET_ROUTE, '/v1/responses', {}, upgrade, res, body).catch((error: unknown) =>
    renderFailure(scope, error, '/v1/responses', res),
  );
}

export function createInferenceHandler(
  deps: Dependencies,
  services: RelayServices,
  renderers: ErrorRenderers,
  tracer?: Tracer,
  observer?: RequestObserver,
): InferenceHandler {
  const opaqueIds = createOpaqueIdStore({
    redis: deps.redis,
    redisKeys: deps.redisKeys,
    onError: (error) => deps.logger.warn({ err: error }, 'opaque id store'),
  });
  const scope: InferenceScope = {
    deps,
    services,
    renderers,
    tracer,
    observer,
    opaqueIds,
    context: createCodecContext(deps.clock, opaqueIds),
    clientIp: createClientIpResolver(deps.config.trustedProxies),
    bodyFallback: jsonBody(deps.config.maxBodyBytes),
    paid: { admission: services.admission, usage: services.usage, logger: deps.logger },
    compactionKeys: new Map(
      Object.values(CODECS).flatMap((codec) =>
        codec.inbound.compaction ? [[codec.protocol, codec.inbound.compaction.deriveKey(deps.config.encryptionKey)] as const] : [],
      ),
    ),
  };
  return {
    handle: (req, res) => handleInference(scope, req, res),
    serveMessage: (upgrade, res, body) => serveWebSocketMessage(scope, upgrade, res, body),
  };
}
