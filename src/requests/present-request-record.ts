/** One request record as the API shows it (`object: request`). */
import { creditsToUsd } from '../account/credits-to-usd';
import type { RequestRecordRow } from '../db/repositories/request-records';

export function presentRequestRecord(row: RequestRecordRow): Record<string, unknown> {
  return {
    object: 'request',
    request_id: row.request_id,
    account_id: Number(row.account_id),
    api_key_id: row.api_key_id === null ? null : Number(row.api_key_id),
    protocol: row.protocol,
    model: row.model,
    upstream_account_id: row.upstream_account_id === null ? null : Number(row.upstream_account_id),
    status: row.status,
    outcome: row.outcome,
    error_class: row.error_class,
    duration_ms: row.duration_ms,
    ttfb_ms: row.ttfb_ms,
    input_tokens: Number(row.input_tokens),
    output_tokens: Number(row.output_tokens),
    cost: creditsToUsd(Number(row.cost_credits)),
    cost_credits: Number(row.cost_credits),
    stream: row.stream,
    replayed: row.replayed,
    warnings: row.warnings,
    has_bodies: row.has_bodies,
    provisional: row.provisional,
    created_at: row.created_at.toISOString(),
  };
}
