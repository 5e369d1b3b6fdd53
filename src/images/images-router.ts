/**
 * `POST /v1/images/generations` (JSON) and `POST /v1/images/edits` (multipart): answered inline;
 * the bytes go to S3 and the caller gets presigned URLs valid 24 hours. Counted like inference
 * (admission with the price of `n` images reserved), billed per image actually returned.
 */
import express, { Router, type Request, type Response } from 'express';
import type { AuthenticatedKey } from '../auth/authenticated-key';
import { assertModelAllowed } from '../auth/model-allowlist';
import { computeImageCost } from '../billing/compute-cost';
import { runPaidCall, type CallEnding, type PaidCallServices } from '../billing/run-paid-call';
import { mediaUsageEvent } from '../billing/charge-call';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import { jsonBody } from '../http/json-body';
import { imageEditContent } from './image-edit-content';
import { createIdempotentRoute } from '../idempotency/idempotent-route';
import { locals, noteCharge } from '../http/request-context';
import { withPeekedHeaders } from '../limits/with-peeked-headers';
import { newRequestId } from '../http/request-id';
import { warningHeader } from '../relay/warning-header';
import { createCallerAuthentication, type CallerAuthentication } from '../auth/authenticate-caller';
import { generateImages, type ImageUpstreamContext } from './generate-images';
import type { ImageGeneration } from './image-generation';
import type { UpstreamAccount } from '../upstream/upstream-account';
import type { MediaServices } from './media-services';
import { billedQuality, planImageCall, type ImageCallPlan } from './image-call-plan';
import { parseImageEditForm } from './parse-image-edit-form';
import { routeMediaModel } from './resolve-media-model';
import { storeImages } from './store-images';

function objectKeyPrefix(now: number, requestId: string): string {
  const day = new Date(now).toISOString().slice(0, 10).replace(/-/g, '/');
  return `images/${day}/${requestId}`;
}

/** One admitted image call: what its paid work needs to generate, store, bill and answer. */
interface AdmittedImageCall {
  key: AuthenticatedKey;
  requestId: string;
  generation: ImageGeneration;
  accounts: UpstreamAccount[];
  startedAt: number;
  signal: AbortSignal;
}

/** The image routes of one router: the caller's authentication and the services their calls share. */
class ImageRoutes {
  readonly caller: CallerAuthentication;
  private readonly paid: PaidCallServices;
  private readonly upstreamContext: ImageUpstreamContext;

  constructor(
    private readonly deps: Dependencies,
    private readonly services: MediaServices,
  ) {
    this.caller = createCallerAuthentication(services.authenticator, deps.config.trustedProxies);
    this.paid = { admission: services.admission, usage: services.usage, logger: deps.logger };
    this.upstreamContext = {
      config: deps.config,
      metrics: deps.metrics,
      logger: deps.logger,
      upstreams: services.upstreams,
      upstreamClient: services.upstreamClient,
    };
  }

  readonly generations = async (req: Request, res: Response): Promise<void> => {
    const key = await this.caller.authenticate(req);
    const plan = await withPeekedHeaders(this.services.admission, key, res, () =>
      planImageCall(this.deps.catalog, req.body, '/v1/images/generations'),
    );
    await this.run(req, res, key, plan);
  };

  readonly edits = async (req: Request, res: Response): Promise<void> => {
    const key = await this.caller.authenticate(req);
    const plan = await withPeekedHeaders(this.services.admission, key, res, async () => {
      const contentType = req.headers['content-type'] ?? '';
      if (!Buffer.isBuffer(req.body) || !contentType.toLowerCase().startsWith('multipart/form-data')) {
        throw new GatewayError(
          'invalid_request',
          'images/edits takes a multipart/form-data body with image (or image[]), optional mask, prompt and model',
        );
      }
      const form = await parseImageEditForm(req.body, contentType);
      return planImageCall(this.deps.catalog, form.fields, '/v1/images/edits', {
        images: form.images,
        ...(form.mask ? { mask: form.mask } : {}),
      });
    });
    await this.run(req, res, key, plan);
  };

  private async run(req: Request, res: Response, key: AuthenticatedKey, plan: ImageCallPlan): Promise<void> {
    const requestId = locals(res).requestId ?? newRequestId();
    const { generation } = plan;
    const accounts = await withPeekedHeaders(this.services.admission, key, res, () => {
      assertModelAllowed(key, generation.model.id);
      return routeMediaModel(this.services.upstreams, key, generation.model);
    });
    const startedAt = this.deps.clock.now();
    const abort = new AbortController();
    const onClose = () => {
      if (!res.writableEnded) abort.abort();
    };
    res.on('close', onClose);
    try {
      const call: AdmittedImageCall = { key, requestId, generation, accounts, startedAt, signal: abort.signal };
      await runPaidCall(
        this.paid,
        { key, clientIp: this.caller.clientIp(req), requestId, reserveCredits: plan.estimatedCredits, takesLease: true },
        () => this.generate(call, res),
        (admitted) => {
          locals(res).accountingHeaders = admitted.headers();
        },
      );
    } finally {
      res.off('close', onClose);
    }
  }

  /** The paid work: the images from an upstream, stored, billed per image actually returned. */
  private async generate(call: AdmittedImageCall, res: Response): Promise<CallEnding> {
    const { key, requestId, generation, startedAt } = call;
    const outcome = await generateImages(this.upstreamContext, call.accounts, generation, call.signal);
    const stored = await storeImages(
      this.deps.storage,
      outcome.images,
      (index, extension) => `${objectKeyPrefix(startedAt, requestId)}-${index}.${extension}`,
    );
    const credits = computeImageCost(generation.model.prices, generation.size, billedQuality(generation.quality), stored.length);
    const usage = mediaUsageEvent({
      requestId,
      accountId: key.accountId,
      apiKeyId: key.keyId,
      model: generation.model.id,
      protocol: 'images',
      upstreamAccountId: outcome.account.id,
      images: stored.length,
      videoSeconds: 0,
      credits,
      startedAt,
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
          data: stored.map((image) => ({
            url: image.url,
            ...(image.revisedPrompt !== undefined ? { revised_prompt: image.revisedPrompt } : {}),
          })),
        });
      },
    };
  }
}

export function createImagesRouter(deps: Dependencies, services: MediaServices): Router {
  const routes = new ImageRoutes(deps, services);
  const router = Router();
  const idempotent = createIdempotentRoute(deps, {
    authenticate: (req) => routes.caller.authenticate(req),
    peekHeaders: (key) => services.admission.peekHeaders(key),
    binaryContent: imageEditContent,
  }); // issue 17
  router.post('/v1/images/generations', jsonBody(deps.config.maxBodyBytes), idempotent('conflict', routes.generations)); // issue 17: Idempotency-Key
  router.post(
    '/v1/images/edits',
    express.raw({ type: 'multipart/form-data', limit: deps.config.maxBodyBytes }),
    idempotent('conflict', routes.edits),
  ); // issue 17: Idempotency-Key
  return router;
}
