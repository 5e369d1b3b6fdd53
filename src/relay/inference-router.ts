/**
 * The four inference protocols (interface section 4): authenticate per the protocol's rules, decode
 * to the IR, resolve the model and its gates, admit (limits and money), then relay. Errors render in
 * the caller's protocol envelope with the accounting headers.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { resolveClientIp } from '../auth/client-ip';
import { extractCredential } from '../auth/extract-credential';
import type { AuthenticatedKey } from '../auth/authenticated-key';
import type { Dependencies } from '../dependencies';
import { GatewayError, isGatewayError } from '../errors/gateway-error';
import { jsonBody } from '../http/json-body';
import { locals } from '../http/request-context';
import type { Protocol } from '../ir/protocol';
import { CODECS } from './codec-registry';
import { createCodecContext } from './codec-context';
import { estimateInputTokens, estimateReservationCredits } from '../limits/estimate-reservation';
import { onceTicket } from './once-ticket';
import type { RelayPlan } from './relay-plan';
import type { RelayServices } from './relay-services';
import { checkCapabilities, resolveModel } from './resolve-model';
import { runRelay } from './run-relay';

const MAX_TOKENS_FIELD: Record<Protocol, string> = {
  messages: 'max_tokens', chat: 'max_tokens', responses: 'max_output_tokens', 'generate-content': 'generationConfig.maxOutputTokens',
};

const GENERATE_CONTENT_PATH = /^\/v1(?:beta)?\/models\/([^/]+):(generateContent|streamGenerateContent)$/;

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function surface(protocol: Protocol): RequestHandler {
  return (_req, res, next) => {
    locals(res).surface = protocol;
    locals(res).routeLabel = protocol;
    next();
  };
}

export function createInferenceRouter(deps: Dependencies, services: RelayServices): Router {
  const router = Router();
  const body = jsonBody(deps.config.maxBodyBytes);
  const context = createCodecContext(deps.clock);

  async function withHeaders<T>(key: AuthenticatedKey, res: Response, work: () => T | Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isGatewayError(error) && !locals(res).accountingHeaders) {
        locals(res).accountingHeaders = await services.admission.peekHeaders(key, res.locals.surface).catch(() => ({}));
      }
      throw error;
    }
  }

  const handler = (protocol: Protocol): RequestHandler => async (req, res) => {
    const startedAt = deps.clock.now();
    const codec = CODECS[protocol];
    const secret = extractCredential(protocol, req.headers, req.query as Record<string, unknown>);
    if (!secret) {
      throw new GatewayError('authentication', protocol === 'responses'
        ? 'missing API key: send Authorization: Bearer <key>'
        : protocol === 'generate-content' ? 'missing API key: send ?key=<key> or x-goog-api-key' : 'missing API key: send x-api-key or Authorization: Bearer <key>');
    }
    const key = await services.authenticator.authenticate(secret);

    const prepared = await withHeaders(key, res, () => {
      let betaHeader: string | undefined;
      if (protocol === 'messages') {
        const version = header(req, 'anthropic-version') ?? header(req, 'messages-version');
        if (!version) throw new GatewayError('invalid_request', 'missing messages-version header (anthropic-version is accepted too); use 2023-06-01', { param: 'messages-version' });
        if (!/^\d{4}-\d{2}-\d{2}$/.test(version)) throw new GatewayError('invalid_request', `messages-version ${version} is not a date such as 2023-06-01`, { param: 'messages-version' });
        betaHeader = header(req, 'anthropic-beta') ?? header(req, 'messages-beta');
      }
      if (req.body === undefined || req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
        throw new GatewayError('invalid_request', 'request body must be a JSON object');
      }
      const decoded = codec.inbound.decodeRequest(req.body, context);
      const request = decoded.request;
      let sse = false;
      if (protocol === 'generate-content') {
        const match = GENERATE_CONTENT_PATH.exec(req.path);
        request.model = decodeURIComponent(match?.[1] ?? '').replace(/^models\//, '');
        request.stream = match?.[2] === 'streamGenerateContent' || req.query.stream === 'true';
        sse = req.query.alt === 'sse';
      }
      const model = resolveModel(deps.catalog, request.model, protocol, key);
      const warnings = [...decoded.warnings, ...checkCapabilities(model, request, MAX_TOKENS_FIELD[protocol])];
      return { request, model, warnings, betaHeader, sse };
    });

    const { request, model, warnings, betaHeader, sse } = prepared;
    const bodyBytes = Number(req.headers['content-length'] ?? 0) || JSON.stringify(req.body).length;
    const reserveCredits = estimateReservationCredits({
      model, bodyBytes, requestedMaxOutputTokens: request.sampling.maxOutputTokens, maxReservedOutputTokens: deps.config.reservationMaxOutputTokens,
    });
    const ticket = onceTicket(await services.admission.admit({
      key,
      clientIp: resolveClientIp(req.socket.remoteAddress, header(req, 'x-forwarded-for'), deps.config.trustedProxies),
      requestId: locals(res).requestId,
      reserveCredits,
      takesLease: true,
      surface: protocol,
    }));
    locals(res).accountingHeaders = ticket.headers();

    try {
      let passThroughAllowed = true;
      if (protocol === 'responses') {
        // Stored answers carry the gateway's own ids, so Responses is translated unless nothing is stored.
        passThroughAllowed = request.store === false && request.previousResponseId === undefined;
        if (request.previousResponseId !== undefined) {
          const stored = await services.responses.load(request.previousResponseId, key.accountId);
          request.turns = [...stored.turns, ...request.turns];
          request.previousResponseId = undefined;
        }
      }
      if (protocol === 'generate-content' && request.stream && !sse) passThroughAllowed = false;
      const plan: RelayPlan = {
        protocol,
        requestId: locals(res).requestId,
        startedAt,
        key,
        model,
        rawBody: req.body as Record<string, unknown>,
        request,
        warnings,
        stream: request.stream,
        streamOptions: {
          model: model.id,
          includeUsage: request.includeUsage,
          sse,
          request,
          responseId: protocol === 'responses' ? context.newId('resp_') : undefined,
        },
        context,
        ticket,
        inputEstimate: estimateInputTokens(bodyBytes, model.contextWindow),
        betaHeader,
        betaQuery: req.query.beta === 'true',
        passThroughAllowed,
      };
      if (request.metadata?.user_id) deps.logger.info({ requestId: plan.requestId, userId: request.metadata.user_id }, 'metadata.user_id');
      await runRelay(plan, req, res, deps, services);
    } catch (error) {
      await ticket.release().catch(() => undefined);
      throw error;
    } finally {
      // Whatever ended the request, the lease is gone (settle or release already did it).
      if (!res.headersSent && !res.destroyed) await ticket.release().catch(() => undefined);
    }
  };

  router.post('/v1/messages', surface('messages'), body, handler('messages'));
  router.post('/v1/responses', surface('responses'), body, handler('responses'));
  router.post('/v1/chat/completions', surface('chat'), body, handler('chat'));
  router.post(GENERATE_CONTENT_PATH, surface('generate-content'), body, handler('generate-content'));
  return router;
}
