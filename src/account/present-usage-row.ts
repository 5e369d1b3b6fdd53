/** One row of `GET /api/v1/me/usage`. `prompt_tokens` counts every input token, cached ones included. */
import { creditsToUsd } from './credits-to-usd';
import type { UsageRowRecord } from './list-usage-rows';

export function presentUsageRow(row: UsageRowRecord): Record<string, unknown> {
  return {
    object: 'usage',
    id: row.id,
    request_id: row.requestId,
    api_key_id: row.apiKeyId,
    model: row.model,
    protocol: row.protocol,
    prompt_tokens: row.promptTokens,
    completion_tokens: row.completionTokens,
    total_tokens: row.promptTokens + row.completionTokens,
    cache_read_tokens: row.cacheReadTokens,
    cache_write_tokens: row.cacheWriteTokens,
    reasoning_tokens: row.reasoningTokens,
    images: row.images,
    video_seconds: row.videoSeconds,
    credits: row.credits,
    cost: creditsToUsd(row.credits),
    stream: row.stream,
    // `aborted`: the client went away mid-stream; billed for what was produced until then.
    status: row.status,
    // The request's duration and time to first byte as the API measured them (null before its record is written).
    duration_ms: row.durationMs,
    ttfb_ms: row.ttfbMs,
    started_at: row.startedAt.toISOString(),
    created_at: row.createdAt.toISOString(),
  };
}
