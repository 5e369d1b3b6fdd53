/** A request record as the request log builds it, for tests that write records directly. */
import { randomBytes } from 'node:crypto';
import type { RequestRecord } from '../../src/requests/request-record';

export function requestRecord(overrides: Partial<RequestRecord> = {}): RequestRecord {
  return {
    requestId: `req_${randomBytes(12).toString('hex')}`,
    accountId: 1,
    apiKeyId: 2,
    protocol: 'chat',
    model: 'm',
    upstreamAccountId: null,
    status: 200,
    outcome: 'ok',
    errorClass: null,
    durationMs: 5,
    ttfbMs: 4,
    inputTokens: 1,
    outputTokens: 2,
    costCredits: 3,
    stream: false,
    replayed: false,
    warnings: [],
    startedAt: Date.now(),
    ...overrides,
  };
}
