/**
 * One image request against the group's accounts: each account in its own provider shape, a
 * retryable failure (transport, 429, 5xx) cools the account down and tries the next one.
 */
import type { Config } from '../config';
import { GatewayError } from '../errors/gateway-error';
import type { Logger } from '../http/logger';
import type { Metrics } from '../http/metrics';
import type { TranslationWarning } from '../ir/warning';
import type { UpstreamAccount } from '../upstream/upstream-account';
import { toUpstreamError, type UpstreamClient } from '../upstream/upstream-client';
import type { UpstreamDirectory } from '../upstream/upstream-directory';
import { downloadUpstreamBytes } from './download-upstream-bytes';
import { callGenerateContentImage } from './generate-content-image-call';
import type { GeneratedImage, ImageGeneration } from './image-generation';
import { callOpenAiImages } from './openai-images-call';

export interface ImageUpstreamContext {
  config: Pick<Config, 'upstream' | 'imageFetch'>;
  metrics: Metrics;
  logger: Logger;
  upstreams: UpstreamDirectory;
  upstreamClient: UpstreamClient;
}

export interface ImagesOutcome {
  images: GeneratedImage[];
  account: UpstreamAccount;
  warnings: TranslationWarning[];
}

async function callAccount(
  context: ImageUpstreamContext,
  account: UpstreamAccount,
  generation: ImageGeneration,
  warnings: TranslationWarning[],
  signal?: AbortSignal,
): Promise<GeneratedImage[]> {
  switch (account.protocol) {
    case 'chat':
    case 'responses':
      return callOpenAiImages({
        client: context.upstreamClient,
        account,
        generation,
        signal,
        warnings,
        download: (url, downloadSignal) =>
          downloadUpstreamBytes(context.upstreamClient, url, {
            upstreamBaseUrl: account.baseUrl,
            maxBytes: context.config.imageFetch.maxBytes,
            signal: downloadSignal,
          }),
      });
    case 'generate-content':
      return callGenerateContentImage({ client: context.upstreamClient, account, generation, signal, warnings });
    case 'messages':
      throw new GatewayError('upstream_error', `upstream account ${account.id} speaks Messages, which has no image output`);
  }
}

export async function generateImages(
  context: ImageUpstreamContext,
  accounts: readonly UpstreamAccount[],
  generation: ImageGeneration,
  signal?: AbortSignal,
): Promise<ImagesOutcome> {
  let lastError: GatewayError | undefined;
  for (const account of accounts.slice(0, Math.max(1, context.config.upstream.maxAttempts))) {
    // Warnings of a failed attempt would describe a shape that was not used in the end.
    const warnings: TranslationWarning[] = [];
    try {
      const images = await callAccount(context, account, generation, warnings, signal);
      for (const warning of warnings)
        context.metrics.translationWarnings.inc({ from: 'images', to: account.protocol, field: warning.field });
      return { images, account, warnings };
    } catch (thrown) {
      const error = toUpstreamError(thrown);
      if (signal?.aborted) throw error;
      context.metrics.upstreamFailures.inc({
        protocol: account.protocol,
        reason: error.upstream ? String(error.upstream.status) : error.kind,
      });
      if (!error.retryable) throw error;
      context.logger.warn(
        { upstreamAccount: account.id, kind: error.kind, message: error.message },
        'image upstream failed; trying the next account',
      );
      context.upstreams.cooldown(account.id, context.config.upstream.cooldownMs);
      lastError = error;
    }
  }
  throw lastError ?? new GatewayError('no_available_account', `no available account serves model ${generation.model.id}`);
}
