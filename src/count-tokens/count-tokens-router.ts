/**
 * Token counting in each family's own shape, free and never rate-limited: the key is authenticated
 * but the request is neither admitted nor billed.
 * - Messages `POST /v1/messages/count_tokens` → `{input_tokens}`
 * - Generate-Content `POST /v1beta/models/{model}:countTokens` → `{totalTokens}`
 * - Responses `POST /v1/responses/input_tokens` → `{object: 'response.input_tokens', input_tokens}`
 * The body is validated like the inference call's and the model resolved the same way (aliases,
 * protocol, group). An upstream account that speaks the caller's protocol counts (all three APIs
 * do); otherwise, or when the upstream is unavailable, the count is the request-size estimate that
 * admission uses. `x-gateway-token-count: upstream|estimate` says which.
 */
import { Router, type Request, type Response } from 'express';
import { createCallerAuthentication } from '../auth/authenticate-caller';
import { extractCredential } from '../auth/extract-credential';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import { noteCaller } from '../http/request-context';
import { jsonBody } from '../http/json-body';
import { locals } from '../http/request-context';
import type { Protocol } from '../ir/protocol';
import { estimateInputTokens } from '../billing/estimate-reservation';
import { CODECS } from '../relay/codec-registry';
import { createCodecContext } from '../relay/codec-context';
import type { RelayServices } from '../relay/relay-services';
import { resolveModel } from '../relay/resolve-model';
import { countWithUpstream, type CountingProtocol } from './count-with-upstream';

const MISSING_KEY: Record<CountingProtocol, string> = {
  messages: 'missing API key: send x-api-key or Authorization: Bearer <key>',
  responses: 'missing API key: send Authorization: Bearer <key>',
  'generate-content': 'missing API key: send ?key=<key> or x-goog-api-key',
};

const COUNT_TOKENS_PATH = /^\/v1(?:beta)?\/models\/([^/]+):countTokens$/;

function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new GatewayError('invalid_request', 'request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

/** The inference body the count stands for: what the codec validates. */
function inferenceBody(protocol: CountingProtocol, body: Record<string, unknown>): Record<string, unknown> {
  switch (protocol) {
    // count_tokens takes no max_tokens; the Messages schema requires one.
    case 'messages': return { max_tokens: 1, ...body };
    case 'generate-content': {
      const inner = body.generateContentRequest;
      if (inner === undefined) return body;
      if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) {
        throw new GatewayError('invalid_request', 'generateContentRequest: expected an object', { param: 'generateContentRequest' });
      }
      const { model: _model, ...rest } = inner as Record<string, unknown>;
      return rest;
    }
    case 'responses': return body;
  }
}

function countBody(protocol: CountingProtocol, tokens: number): Record<string, unknown> {
  switch (protocol) {
    case 'messages': return { input_tokens: tokens };
    case 'generate-content': return { totalTokens: tokens };
    case 'responses': return { object: 'response.input_tokens', input_tokens: tokens };
  }
}

export function createCountTokensRouter(deps: Dependencies, services: RelayServices): Router {
  const router = Router();
  const context = createCodecContext(deps.clock);
  const caller = createCallerAuthentication(services.authenticator, deps.config.trustedProxies);

  async function count(protocol: CountingProtocol, req: Request, res: Response, pathModel?: string): Promise<void> {
    const secret = extractCredential(protocol, req.headers, req.query as Record<string, unknown>);
    if (!secret) throw new GatewayError('authentication', MISSING_KEY[protocol]);
    const key = await caller.authenticateSecret(secret, req);
    noteCaller(res, key, 'count-tokens');
    const body = bodyObject(req.body);
    const { request } = CODECS[protocol].inbound.decodeRequest(inferenceBody(protocol, body), context);
    const model = resolveModel(deps.catalog, pathModel ?? request.model, protocol, key);
    const beta = protocol === 'messages' ? req.get('anthropic-beta') ?? req.get('messages-beta') : undefined;
    const upstream = request.previousResponseId === undefined
      ? await countWithUpstream(protocol, body, model, key.groupId, services, beta === undefined ? {} : { 'anthropic-beta': beta })
      : undefined;
    const tokens = upstream ?? estimateInputTokens(Buffer.byteLength(JSON.stringify(body)), model.contextWindow);
    res.setHeader('x-gateway-token-count', upstream === undefined ? 'estimate' : 'upstream');
    res.json(countBody(protocol, tokens));
  }

  const parse = jsonBody(deps.config.maxBodyBytes);
  const surface = (protocol: Protocol) => (_req: Request, res: Response, next: () => void) => {
    locals(res).surface = protocol;
    next();
  };
  router.post('/v1/messages/count_tokens', surface('messages'), parse, (req, res) => count('messages', req, res));
  router.post('/v1/responses/input_tokens', surface('responses'), parse, (req, res) => count('responses', req, res));
  router.post(COUNT_TOKENS_PATH, surface('generate-content'), parse, (req, res) => {
    const raw = COUNT_TOKENS_PATH.exec(req.path)?.[1] ?? '';
    let name: string;
    try {
      name = decodeURIComponent(raw).replace(/^models\//, '');
    } catch {
      throw new GatewayError('invalid_request', 'the model name in the path is not valid percent-encoding', { param: 'model' });
    }
    return count('generate-content', req, res, name);
  });
  return router;
}
