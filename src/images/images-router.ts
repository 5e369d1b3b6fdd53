/**
 * `POST /v1/images/generations` (JSON) and `POST /v1/images/edits` (multipart): answered inline;
 * the bytes go to S3 and the caller gets presigned URLs valid 24 hours. Counted like inference
 * (admission with the price of `n` images reserved), billed per image actually returned.
 */
import express, { Router, type Request, type Response } from 'express';
import type { AuthenticatedKey } from '../auth/authenticated-key';
import { assertModelAllowed } from '../auth/model-allowlist';
import { computeImageCost } from '../billing/compute-cost';
import { runPaidCall } from '../billing/run-paid-call';
import { mediaUsageEvent } from '../billing/charge-call';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import { jsonBody } from '../http/json-body';
import { imageEditContent } from './image-edit-content';
import { createIdempotentRoute } from '../idempotency/idempotent-route';
import { locals, noteCharge } from '../http/request-context';
import { newRequestId } from '../http/request-id';
import { warningHeader } from '../relay/warning-header';
import { createCallerAuthentication } from '../auth/authenticate-caller';
import { generateImages } from './generate-images';
import type { MediaServices } from './media-services';
import { billedQuality, planImageCall, type ImageCallPlan } from './image-call-plan';
import { parseImageEditForm } from './parse-image-edit-form';
import { routeMediaModel } from './resolve-media-model';
import { storeImages } from './store-images';

function objectKeyPrefix(now: number, requestId: string): string {
  const day = new Date(now).toISOString().slice(0, 10).replace(/-/g, '/');
  return `images/${day}/${requestId}`;
}

export function createImagesRouter(deps: Dependencies, services: MediaServices): Router {
  const router = Router();
  const caller = createCallerAuthentication(services.authenticator, deps.config.trustedProxies);
  const idempotent = createIdempotentRoute(deps, { authenticate: (req) => caller.authenticate(req), peekHeaders: (key) => services.admission.peekHeaders(key), binaryContent: imageEditContent }); // issue 17
  const paid = { admission: services.admission, usage: services.usage, logger: deps.logger };
  const upstreamContext = { config: deps.config, metrics: deps.metrics, logger: deps.logger, upstreams: services.upstreams, upstreamClient: services.upstreamClient };

  /** Errors before admission still carry the caller's accounting headers. */
  async function withPeekedHeaders<T>(key: AuthenticatedKey, res: Response, work: () => Promise<T> | T): Promise<T> {
    try {
      return await work();
    } catch (error) {
      locals(res).accountingHeaders = await services.admission.peekHeaders(key).catch(() => ({}));
      throw error;
    }
  }

  async function run(req: Request, res: Response, key: AuthenticatedKey, plan: ImageCallPlan): Promise<void> {
    const requestId = locals(res).requestId ?? newRequestId();
    const { generation } = plan;
    const accounts = await withPeekedHeaders(key, res, () => {
      assertModelAllowed(key, generation.model.id);
      return routeMediaModel(services.upstreams, key, generation.model);
    });
    const startedAt = deps.clock.now();
    const abort = new AbortController();
    const onClose = () => { if (!res.writableEnded) abort.abort(); };
    res.on('close', onClose);
    try {
      await runPaidCall(paid, { key, clientIp: caller.clientIp(req), requestId, reserveCredits: plan.estimatedCredits, takesLease: true }, async () => {
        const outcome = await generateImages(upstreamContext, accounts, generation, abort.signal);
        const stored = await storeImages(deps.storage, outcome.images, (index, extension) => `${objectKeyPrefix(startedAt, requestId)}-${index}.${extension}`);
        const credits = computeImageCost(generation.model.prices, generation.size, billedQuality(generation.quality), stored.length);
        const usage = mediaUsageEvent({
          requestId, accountId: key.accountId, apiKeyId: key.keyId, model: generation.model.id, protocol: 'images',
          upstreamAccountId: outcome.account.id, images: stored.length, videoSeconds: 0, credits, startedAt,
        });
        noteCharge(res, usage);
        return {
          kind: 'settle',
          charge: { credits, usage },
          deliver(headers) {
            for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
            res.setHeader('x-request-cost-credits', String(credits));
            const warnings = warningHeader(outcome.warnings);
            if (warnings) res.setHeader('x-gateway-warnings', warnings);
            res.json({
              created: Math.floor(startedAt / 1000),
              data: stored.map((image) => ({ url: image.url, ...(image.revisedPrompt !== undefined ? { revised_prompt: image.revisedPrompt } : {}) })),
            });
          },
        };
      }, (admitted) => { locals(res).accountingHeaders = admitted.headers(); });
    } finally {
      res.off('close', onClose);
    }
  }

  router.post('/v1/images/generations', jsonBody(deps.config.maxBodyBytes), idempotent('conflict', async (req, res) => { // issue 17: Idempotency-Key
    const key = await caller.authenticate(req);
    const plan = await withPeekedHeaders(key, res, () => planImageCall(deps.catalog, req.body, '/v1/images/generations'));
    await run(req, res, key, plan);
  }));

  router.post('/v1/images/edits', express.raw({ type: 'multipart/form-data', limit: deps.config.maxBodyBytes }), idempotent('conflict', async (req, res) => { // issue 17: Idempotency-Key
    const key = await caller.authenticate(req);
    const plan = await withPeekedHeaders(key, res, async () => {
      const contentType = req.headers['content-type'] ?? '';
      if (!Buffer.isBuffer(req.body) || !contentType.toLowerCase().startsWith('multipart/form-data')) {
        throw new GatewayError('invalid_request', 'images/edits takes a multipart/form-data body with image (or image[]), optional mask, prompt and model');
      }
      const form = await parseImageEditForm(req.body, contentType);
      return planImageCall(deps.catalog, form.fields, '/v1/images/edits', { images: form.images, ...(form.mask ? { mask: form.mask } : {}) });
    });
    await run(req, res, key, plan);
  }));

  return router;
}
