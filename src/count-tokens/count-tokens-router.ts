/**
 * Token counting in each family's own shape, free and never rate-limited: the key is authenticated
 * but the request is neither admitted nor billed. Each protocol's codec that has a counting endpoint
 * (`Codec.countTokens`) names its route, the upstream's endpoint and the answer's shape:
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
import { countWithUpstream, type CountTokensCodec } from './count-with-upstream';

function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new GatewayError('invalid_request', 'request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

export function createCountTokensRouter(deps: Dependencies, services: RelayServices): Router {
  const router = Router();
  const context = createCodecContext(deps.clock);
  const caller = createCallerAuthentication(services.authenticator, deps.config.trustedProxies);

  async function count(protocol: Protocol, counting: CountTokensCodec, req: Request, res: Response, pathModel?: string): Promise<void> {
    const inbound = CODECS[protocol].inbound;
    const secret = extractCredential(inbound.credentials, req.headers, req.query as Record<string, unknown>);
    if (!secret) throw new GatewayError('authentication', inbound.missingCredentialMessage);
    const key = await caller.authenticateSecret(secret, req);
    noteCaller(res, key, 'count-tokens');
    const body = bodyObject(req.body);
    const { request } = inbound.decodeRequest(counting.inferenceBody(body), context);
    const model = resolveModel(deps.catalog, pathModel ?? request.model, protocol, key);
    const upstream =
      request.previousResponseId === undefined
        ? await countWithUpstream(protocol, counting, body, model, key.groupId, services, inbound.readClientHeaders?.(req.headers) ?? {})
        : undefined;
    const tokens = upstream ?? estimateInputTokens(Buffer.byteLength(JSON.stringify(body)), model.contextWindow);
    res.setHeader('x-gateway-token-count', upstream === undefined ? 'estimate' : 'upstream');
    res.json(counting.encodeCount(tokens));
  }

  const parse = jsonBody(deps.config.maxBodyBytes);
  const surface = (protocol: Protocol) => (_req: Request, res: Response, next: () => void) => {
    locals(res).surface = protocol;
    next();
  };
  for (const codec of Object.values(CODECS)) {
    const counting = codec.countTokens;
    if (!counting) continue;
    const { route } = counting;
    if (typeof route === 'string') {
      router.post(route, surface(codec.protocol), parse, (req, res) => count(codec.protocol, counting, req, res));
      continue;
    }
    // The model is in the path.
    router.post(route, surface(codec.protocol), parse, (req, res) => {
      const raw = route.exec(req.path)?.[1] ?? '';
      let name: string;
      try {
        name = decodeURIComponent(raw).replace(/^models\//, '');
      } catch {
        throw new GatewayError('invalid_request', 'the model name in the path is not valid percent-encoding', { param: 'model' });
      }
      return count(codec.protocol, counting, req, res, name);
    });
  }
  return router;
}
