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
import { runPaidCall } from '../billing/run-paid-call';
import type { Dependencies } from '../dependencies';
import { GatewayError, isGatewayError } from '../errors/gateway-error';
import { observeRequest, type RequestObserver } from '../http/access-log';
import { renderThrown, type ErrorRenderers } from '../http/error-middleware';
import { jsonBody } from '../http/json-body';
import { readJsonBody } from '../http/read-json-body';
import { locals, noteCaller, noteCharge } from '../http/request-context';
import { assignRequestId } from '../http/request-id';
import { beginTrace, endHandlerTrace, markTrace, type Tracer } from '../http/request-trace';
import type { Protocol } from '../ir/protocol';
import { estimateInputTokens, estimateReservationCredits } from '../billing/estimate-reservation';
import { CODECS } from './codec-registry';
import { createCodecContext } from './codec-context';
import { createOpaqueIdStore } from './opaque-id-store';
import type { RelayPlan } from './relay-plan';
import type { RelayServices } from './relay-services';
import { checkCapabilities, resolveModel } from './resolve-model';
import { lookUpRouting } from './choose-accounts';
import { runRelay } from './run-relay';
import { applyCorsHeaders } from '../http/cors';
import { deriveCompactionKey } from '../protocols/responses/compaction-carrier';
import { encodeCompactionAnswer, hasCompactionTrigger, openCompactionItems, summaryRequest } from '../protocols/responses/compaction';

const MAX_TOKENS_FIELD: Record<Protocol, string> = {
  messages: 'max_tokens', chat: 'max_tokens', responses: 'max_output_tokens', 'generate-content': 'generationConfig.maxOutputTokens',
};

const GENERATE_CONTENT_PATH = /^\/v1(?:beta)?\/models\/([^/]+):(generateContent|streamGenerateContent)$/;

/** The string routes as express matched them: case-insensitive, one optional trailing slash. */
const FIXED_ROUTES: Record<string, Protocol> = {
  '/v1/messages': 'messages',
  '/v1/responses': 'responses',
  '/v1/responses/compact': 'responses',
  '/v1/chat/completions': 'chat',
};

function routeOf(path: string): Protocol | undefined {
  const lower = path.toLowerCase();
  const fixed = FIXED_ROUTES[lower.endsWith('/') ? lower.slice(0, -1) : lower];
  if (fixed) return fixed;
  return GENERATE_CONTENT_PATH.test(path) ? 'generate-content' : undefined;
}

function isCompactPath(path: string): boolean {
  const lower = path.toLowerCase();
  return lower === '/v1/responses/compact' || lower === '/v1/responses/compact/';
}

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

export function createInferenceHandler(deps: Dependencies, services: RelayServices, renderers: ErrorRenderers, tracer?: Tracer, observer?: RequestObserver): InferenceHandler {
  // Ids too long for the clients' limits are kept here; loaded for a request before it is decoded.
  const opaqueIds = createOpaqueIdStore({ redis: deps.redis, redisKeys: deps.redisKeys, onError: (error) => deps.logger.warn({ err: error }, 'opaque id store') });
  const context = createCodecContext(deps.clock, opaqueIds);
  const clientIp = createClientIpResolver(deps.config.trustedProxies);
  // Compressed or non-UTF-8 bodies still go through body-parser, as before.
  const bodyFallback = jsonBody(deps.config.maxBodyBytes);
  const paid = { admission: services.admission, usage: services.usage, logger: deps.logger };
  const compactionKey = deriveCompactionKey(deps.config.encryptionKey);

  function renderFailure(error: unknown, path: string, res: ServerResponse): void {
    endHandlerTrace(res, 'failed');
    try {
      renderThrown(deps.logger, renderers, error, path, res);
    } catch (renderError) {
      // Never an unhandled rejection: the connection can only be dropped.
      deps.logger.error({ requestId: locals(res).requestId, err: renderError }, 'could not render an error');
      res.destroy();
    }
  }

  async function withHeaders<T>(key: AuthenticatedKey, res: ServerResponse, work: () => T | Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isGatewayError(error) && !locals(res).accountingHeaders) {
        locals(res).accountingHeaders = await services.admission.peekHeaders(key, locals(res).surface).catch(() => ({}));
      }
      throw error;
    }
  }

  async function serve(protocol: Protocol, path: string, query: ParsedUrlQuery, req: IncomingMessage, res: ServerResponse,
    parsedBody?: Record<string, unknown>): Promise<void> {
    const startedAt = deps.clock.now();
    const body = parsedBody ?? await readJsonBody(req, res, deps.config.maxBodyBytes, bodyFallback);
    markTrace(res, 'read');
    const codec = CODECS[protocol];
    const secret = extractCredential(protocol, req.headers, query);
    if (!secret) {
      throw new GatewayError('authentication', protocol === 'responses'
        ? 'missing API key: send Authorization: Bearer <key>'
        : protocol === 'generate-content' ? 'missing API key: send ?key=<key> or x-goog-api-key' : 'missing API key: send x-api-key or Authorization: Bearer <key>');
    }
    const callerIp = clientIp(req.socket.remoteAddress, header(req, 'x-forwarded-for'));
    const key = await services.authenticator.authenticate(secret, callerIp).catch(async (error: unknown) => {
      // A refusal by the key's IP rules carries its accounting headers, like admission's refusals.
      if (error instanceof IpRuleRefusal) noteCaller(res, error.key, protocol);
      if (error instanceof IpRuleRefusal) locals(res).accountingHeaders = await services.admission.peekHeaders(error.key, protocol).catch(() => ({}));
      throw error;
    });
    if (protocol === 'chat' || protocol === 'responses') await opaqueIds.preload(body);
    markTrace(res, 'authenticated');
    const facts = noteCaller(res, key, protocol);
    if (facts.keepBodies) facts.requestBody = locals(res).bodyText ?? body;

    const prepared = await withHeaders(key, res, () => {
      let betaHeader: string | undefined;
      if (protocol === 'messages') {
        const version = header(req, 'anthropic-version') ?? header(req, 'messages-version');
        if (!version) throw new GatewayError('invalid_request', 'missing messages-version header (anthropic-version is accepted too); use 2023-06-01', { param: 'messages-version' });
        if (!/^\d{4}-\d{2}-\d{2}$/.test(version)) throw new GatewayError('invalid_request', `messages-version ${version} is not a date such as 2023-06-01`, { param: 'messages-version' });
        betaHeader = header(req, 'anthropic-beta') ?? header(req, 'messages-beta');
      }
      if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw new GatewayError('invalid_request', 'request body must be a JSON object');
      }
      // The model asked for, recorded even when the body is refused.
      const asked = (body as { model?: unknown }).model;
      if (typeof asked === 'string') facts.model = asked;
      const decoded = codec.inbound.decodeRequest(body, context);
      const request = decoded.request;
      let sse = false;
      if (protocol === 'generate-content') {
        const match = GENERATE_CONTENT_PATH.exec(path);
        request.model = decodeURIComponent(match?.[1] ?? '').replace(/^models\//, '');
        request.stream = match?.[2] === 'streamGenerateContent' || queryValue(query, 'stream') === 'true';
        sse = queryValue(query, 'alt') === 'sse';
      }
      facts.model = request.model;
      facts.stream = request.stream;
      const model = resolveModel(deps.catalog, request.model, protocol, key);
      facts.model = model.id;
      const warnings = [...decoded.warnings, ...checkCapabilities(model, request, MAX_TOKENS_FIELD[protocol])];
      // Remote compaction (issue 25): the gateway's own compaction items become their summary again.
      const rawBody = body as Record<string, unknown>;
      const opened = protocol === 'responses' ? openCompactionItems(request, compactionKey, key.accountId) : 0;
      const compaction = protocol !== 'responses' ? undefined
        : isCompactPath(path) ? 'compact' as const : hasCompactionTrigger(rawBody) ? 'trigger' as const : undefined;
      return { request, model, warnings, betaHeader, sse, rawBody, opened, compaction };
    });

    const { request, model, warnings, betaHeader, sse, rawBody, opened, compaction } = prepared;
    markTrace(res, 'decoded');
    const bodyBytes = Number(req.headers['content-length'] ?? 0) || JSON.stringify(rawBody).length;
    const reserveCredits = estimateReservationCredits({
      model, bodyBytes, requestedMaxOutputTokens: request.sampling.maxOutputTokens, maxReservedOutputTokens: deps.config.reservationMaxOutputTokens,
    });
    const admission = {
      key,
      clientIp: callerIp,
      requestId: locals(res).requestId,
      reserveCredits,
      takesLease: true,
      surface: protocol,
    };
    // Stored answers carry the gateway's own ids, so Responses is translated unless nothing is stored.
    // A compact call passes through to a native compact endpoint; a compaction trigger is always the
    // gateway's own; a body holding the gateway's compaction items cannot go upstream as it is.
    const passThroughAllowed = opened === 0 && compaction !== 'trigger'
      && (compaction === 'compact' || !(protocol === 'responses' && (request.store !== false || request.previousResponseId !== undefined)))
      && !(protocol === 'generate-content' && request.stream && !sse);
    // Routing's lookups (a Redis read for the session) run beside admission's script; a chained
    // Responses call is routed once its stored turns are known.
    const routing = request.previousResponseId === undefined
      ? lookUpRouting({ protocol, requestId: locals(res).requestId, key, model, rawBody, request, passThroughAllowed, requestHeaders: req.headers }, deps, services)
      : undefined;
    routing?.catch(() => undefined); // awaited by the relay; a refused admission leaves it unread
    await runPaidCall(paid, admission, async (admitted) => {
      if (request.previousResponseId !== undefined) {
        const stored = await services.responses.load(request.previousResponseId, key.accountId);
        request.turns = [...stored.turns, ...request.turns];
        request.previousResponseId = undefined;
      }
      const clientStream = request.stream;
      const plan: RelayPlan = {
        protocol,
        requestId: locals(res).requestId,
        startedAt,
        key,
        model,
        rawBody,
        request: compaction ? summaryRequest(request) : request,
        warnings,
        stream: compaction ? false : request.stream,
        streamOptions: {
          model: model.id,
          includeUsage: request.includeUsage,
          sse,
          request,
          responseId: protocol === 'responses' ? context.newId('resp_') : undefined,
        },
        context,
        admitted,
        inputEstimate: estimateInputTokens(bodyBytes, model.contextWindow),
        betaHeader,
        requestHeaders: req.headers,
        passThroughHeaders: codec.passThroughHeaders(req.headers),
        betaQuery: queryValue(query, 'beta') === 'true',
        passThroughAllowed,
        routing,
        ...(compaction === 'compact' ? { endpoint: 'compact' as const } : {}),
      };
      if (compaction) {
        plan.encodeAnswer = (ir) => encodeCompactionAnswer(ir, {
          endpoint: compaction, stream: clientStream, key: compactionKey, accountId: key.accountId, streamOptions: plan.streamOptions, context,
        });
      }
      if (request.metadata?.user_id) deps.logger.info({ requestId: plan.requestId, userId: request.metadata.user_id }, 'metadata.user_id');
      const ending = await runRelay(plan, res, deps, services);
      facts.warnings = plan.warnings;
      if (ending.kind === 'settle' && ending.charge.usage) noteCharge(res, ending.charge.usage);
      return ending;
    }, (admitted) => { markTrace(res, 'admitted'); locals(res).accountingHeaders = admitted.headers(); });
    endHandlerTrace(res, 'settled'); // a whole answer was settled before it was written (marked there)
  }

  return {
    handle(req, res) {
      const url = req.url ?? '';
      if (req.method !== 'POST' || url.charCodeAt(0) !== 47 /* '/' */) return false;
      const queryStart = url.indexOf('?');
      const path = queryStart < 0 ? url : url.slice(0, queryStart);
      const protocol = routeOf(path);
      if (protocol === undefined) return false;
      beginTrace(tracer, res);
      assignRequestId(res);
      applyCorsHeaders(deps.config.corsAllowedOrigins, req, res);
      locals(res).surface = protocol;
      locals(res).routeLabel = protocol;
      observeRequest(deps.logger, deps.metrics, req, res, () => protocol, observer);
      // express 5's default ("simple") query parser is node's querystring.
      const query = queryStart < 0 ? {} : parseQuery(url.slice(queryStart + 1));
      serve(protocol, path, query, req, res).catch((error: unknown) => renderFailure(error, path, res));
      return true;
    },
    async serveMessage(upgrade, res, body) {
      assignRequestId(res);
      locals(res).surface = 'responses';
      locals(res).routeLabel = 'responses-websocket';
      observeRequest(deps.logger, deps.metrics, upgrade, res, () => 'responses-websocket');
      await serve('responses', '/v1/responses', {}, upgrade, res, body).catch((error: unknown) => renderFailure(error, '/v1/responses', res));
    },
  };
}
