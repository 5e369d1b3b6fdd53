/**
 * Long-running video operations on a Generate-Content provider (PROTOCOLS 7): submit with
 * `:predictLongRunning`, poll `GET /v1beta/{operation}`, cancel with `:cancel`, and open the
 * produced video as a stream (the key is sent only to the provider's own origin).
 */
import { Readable } from 'node:stream';
import type { CatalogModel } from '../catalog/model';
import { GatewayError } from '../errors/gateway-error';
import { readUpstreamJson } from '../images/read-upstream-json';
import type { UpstreamAccount } from '../upstream/upstream-account';
import { readUpstreamText, type UpstreamClient } from '../upstream/upstream-client';
import { normalizeVideoOperation, type ProducedVideo, type VideoOperationState } from './normalize-video-operation';
import type { VideoTaskRequest } from './task-request';
import { checkUpstreamMediaUrl } from '../net/upstream-media-url';

export interface VideoStream {
  body: Readable;
  contentType: string;
}

export interface VideoOperations {
  submit(account: UpstreamAccount, model: CatalogModel, request: VideoTaskRequest): Promise<string>;
  poll(account: UpstreamAccount, operation: string): Promise<VideoOperationState>;
  cancel(account: UpstreamAccount, operation: string): Promise<void>;
  open(account: UpstreamAccount, video: ProducedVideo): Promise<VideoStream>;
}

function requireGenerateContent(account: UpstreamAccount): void {
  if (account.protocol !== 'generate-content') {
    throw new GatewayError(
      'upstream_error',
      `upstream account ${account.id} speaks ${account.protocol}, which has no long-running video operations`,
    );
  }
}

/** An operation name is a path the provider gave us; it must stay a path under /v1beta. */
function operationUrl(account: UpstreamAccount, operation: string, suffix = ''): string {
  if (!/^[A-Za-z0-9._\-/]+$/.test(operation) || operation.includes('..') || operation.startsWith('/')) {
    throw new GatewayError('upstream_error', 'the provider gave an operation name that is not a plain path');
  }
  return `${account.baseUrl}/v1beta/${operation}${suffix}`;
}

function headersFor(account: UpstreamAccount): Record<string, string> {
  return { 'x-goog-api-key': account.credential, 'content-type': 'application/json', accept: 'application/json' };
}

export function createVideoOperations(client: UpstreamClient, options: { pollTimeoutMs: number }): VideoOperations {
  return {
    async submit(account, model, request) {
      requireGenerateContent(account);
      const instance: Record<string, unknown> = { prompt: request.prompt };
      if (request.image) instance.image = { bytesBase64Encoded: request.image.data, mimeType: request.image.mediaType };
      const parameters: Record<string, unknown> = {
        aspectRatio: request.aspectRatio,
        resolution: request.resolution,
        durationSeconds: request.durationSeconds,
        sampleCount: 1,
      };
      if (request.negativePrompt !== undefined) parameters.negativePrompt = request.negativePrompt;
      if (request.seed !== undefined) parameters.seed = request.seed;
      const upstreamModel = model.upstreamModel ?? model.id;
      const response = await client.call({
        url: `${account.baseUrl}/v1beta/models/${encodeURIComponent(upstreamModel)}:predictLongRunning`,
        method: 'POST',
        headers: headersFor(account),
        body: JSON.stringify({ instances: [instance], parameters }),
        firstByteTimeoutMs: options.pollTimeoutMs,
      });
      const body = await readUpstreamJson('generate-content', response);
      const name = (body as { name?: unknown } | null)?.name;
      if (typeof name !== 'string' || name === '')
        throw new GatewayError('upstream_error', 'the provider accepted the video without an operation name');
      return name;
    },
    async poll(account, operation) {
      requireGenerateContent(account);
      const response = await client.call({
        url: operationUrl(account, operation),
        method: 'GET',
        headers: headersFor(account),
        firstByteTimeoutMs: options.pollTimeoutMs,
      });
      return normalizeVideoOperation(await readUpstreamJson('generate-content', response));
    },
    async cancel(account, operation) {
      requireGenerateContent(account);
      const response = await client.call({
        url: operationUrl(account, operation, ':cancel'),
        method: 'POST',
        headers: headersFor(account),
        body: '{}',
        firstByteTimeoutMs: options.pollTimeoutMs,
      });
      await readUpstreamJson('generate-content', response);
    },
    async open(account, video) {
      if (video.inlineData !== undefined) {
        return { body: Readable.from([Buffer.from(video.inlineData, 'base64')]), contentType: video.mimeType };
      }
      if (!video.uri) throw new GatewayError('upstream_error', 'the provider gave a video without a URI');
      const connectTo = await checkUpstreamMediaUrl(video.uri, account.baseUrl).catch((error: Error) => {
        throw new GatewayError('upstream_error', `the provider's video URL was not fetched: ${error.message}`);
      });
      const target = new URL(video.uri);
      const sameOrigin = target.origin === new URL(account.baseUrl).origin;
      const response = await client.call({
        url: target.toString(),
        method: 'GET',
        headers: sameOrigin ? { 'x-goog-api-key': account.credential } : {},
        firstByteTimeoutMs: options.pollTimeoutMs,
        connectTo,
      });
      if (response.status < 200 || response.status >= 300) {
        const text = await readUpstreamText(response).catch(() => '');
        throw new GatewayError('upstream_error', `downloading the video failed (HTTP ${response.status})`, {
          upstream: { status: response.status, body: text.slice(0, 500) },
        });
      }
      const declared = response.headers['content-type'];
      const header = (Array.isArray(declared) ? declared[0] : declared)?.split(';')[0]?.trim();
      const contentType = header && header !== 'application/octet-stream' ? header : video.mimeType;
      return { body: response.body, contentType };
    },
  };
}
