/**
 * The API side of the request log (issue 22). When a response is about to send its last byte, the
 * record of a request whose key authenticated is appended to Redis first (so a process killed right
 * after answering loses none, see records-before-end.ts), held by a durable stream producer (the
 * same machinery as usage events: kept in memory until the request-log worker confirms it in
 * PostgreSQL, appended again if Redis loses it). A streamed answer (settled after its end) gets a
 * provisional record there, and its final record when the response closes (appended off the request
 * path, coalesced), which replaces it in PostgreSQL. Requests refused before authentication are only
 * counted (`gateway_unauthenticated_requests_total`). Nothing here touches money.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { finalRecordIds } from '../db/repositories/request-records';
import type { Dependencies } from '../dependencies';
import type { RequestEndHold, RequestObserver, RequestTiming } from '../http/access-log';
import { locals, type RequestFacts } from '../http/request-context';
import { createDurableStreamProducer, type DurableStreamOptions, type DurableStreamProducer } from '../redis/durable-stream-producer';
import { createRecordsBeforeEnd } from './records-before-end';
import { parseRedactPaths, redactBody, redactTextBody } from './redact-body';
import type { RequestBodies, RequestRecord } from './request-record';

/** Given to the access log: `onClose` records the request when its response closes; `holdEnd` puts the record in Redis before the answer's last byte leaves. */
export interface RequestLog extends RequestObserver {
  /** Absent when the request log is off (`REQUEST_LOG_ENABLED=false`): no connection, no subscription. */
  producer?: DurableStreamProducer<RequestRecord>;
  close(): Promise<void>;
}

type LogDependencies = Pick<Dependencies, 'config' | 'redis' | 'redisKeys' | 'logger' | 'clock' | 'subscriber' | 'db' | 'metrics'>;

/** Status recorded for a client that left before any status line was sent (nginx's convention). */
export const CLIENT_CLOSED_STATUS = 499;

/** The error class of a failure: the gateway's own refusal kind, or `upstream_*` when an upstream caused it. */
export function errorClassOf(failure: NonNullable<RequestFacts['failure']>): string {
  if (!failure.upstream || failure.kind.startsWith('upstream_')) return failure.kind;
  return `upstream_${failure.kind}`;
}

/** The record of a response: `ending` when built as its last byte is about to leave (so not aborted). */
export function toRequestRecord(requestId: string, res: ServerResponse, facts: RequestFacts, timing: RequestTiming, ending = false): RequestRecord {
  const aborted = !ending && !res.writableFinished;
  const status = aborted && !res.headersSent ? CLIENT_CLOSED_STATUS : res.statusCode;
  const failed = facts.failure !== undefined || status >= 400;
  let errorClass: string | null = null;
  if (aborted) errorClass = 'client_abort';
  else if (facts.failure) errorClass = errorClassOf(facts.failure);
  else if (status >= 400) errorClass = `http_${status}`;
  return {
    requestId,
    accountId: facts.accountId,
    apiKeyId: facts.apiKeyId,
    protocol: facts.protocol,
    model: facts.model === undefined ? null : facts.model.slice(0, 200),
    upstreamAccountId: facts.upstreamAccountId ?? null,
    status,
    outcome: aborted ? 'aborted' : failed ? 'error' : 'ok',
    errorClass,
    durationMs: timing.durationMs,
    ttfbMs: timing.ttfbMs,
    inputTokens: facts.usage?.inputTokens ?? 0,
    outputTokens: facts.usage?.outputTokens ?? 0,
    costCredits: facts.usage?.credits ?? 0,
    stream: facts.stream === true,
    replayed: facts.replayed === true,
    warnings: facts.warnings ? facts.warnings.slice(0, 100).map((warning) => warning.field.slice(0, 200)) : [],
    startedAt: timing.startedAt,
  };
}

export function createRequestLog(deps: LogDependencies, options: DurableStreamOptions = {}): RequestLog {
  const settings = deps.config.requestLog;
  const producer = !settings.enabled ? undefined : createDurableStreamProducer<RequestRecord>(deps, {
    name: 'request-log-producer',
    streamOf: () => deps.redisKeys.requestLogStream(),
    channel: deps.redisKeys.requestLogWrittenChannel(),
    batchEntries: true,
    // Records wait up to 5 ms to share one append (they are held in memory either way).
    lingerMs: 5,
    // Kept bodies are not held in memory once in Redis: a stream Redis loses is appended again without them.
    shedAfterAppend: (record) => { delete record.bodies; },
    // A provisional row does not count: the final record is still to be written over it.
    written: (requestIds) => finalRecordIds(deps.db, requestIds),
  }, options);
  const redactPaths = parseRedactPaths(settings.redactPaths);

  const bodiesOf = (facts: RequestFacts): RequestBodies => {
    const request = facts.requestBody === undefined ? undefined : redactBody(facts.requestBody, redactPaths, settings.bodyMaxBytes);
    const response = facts.responseBody === undefined ? undefined : redactTextBody(facts.responseBody, redactPaths, settings.bodyMaxBytes);
    return {
      request: request?.text ?? null,
      response: response?.text ?? null,
      streamEvents: facts.streamEvents ?? null,
      truncated: request?.truncated === true || response?.truncated === true,
    };
  };

  const beforeEnd = producer && createRecordsBeforeEnd(deps.redis, () => deps.redisKeys.requestLogStream(), (error, records) => {
    deps.logger.warn({ err: error, records }, 'request records not appended before their answers ended; kept in memory and appended later');
  });
  // Responses whose complete record went before their end: nothing more is recorded at their close.
  const recordedAtEnd = new WeakSet<ServerResponse>();
  const holdEnd: RequestEndHold = (res, timing, release) => {
    const facts = locals(res).facts;
    if (!facts || !producer || !beforeEnd?.ready()) return false;
    try {
      const record = toRequestRecord(locals(res).requestId, res, facts, timing, true);
      // The status line leaves with this end when nothing was sent yet: its time is now.
      record.ttfbMs ??= timing.durationMs;
      // A stream is settled (and its kept answer assembled) after its end: a final record follows at the close.
      if (facts.stream === true) {
        record.provisional = true;
        return beforeEnd.hold(JSON.stringify(record), release);
      }
      if (facts.keepBodies) record.bodies = bodiesOf(facts);
      const held = producer.hold(record);
      if (!held) return false;
      recordedAtEnd.add(res);
      // Once appended, the producer sheds the kept bodies (shedAfterAppend), as after its own appends.
      if (beforeEnd.hold(held.payload, release, held)) return true;
      held.notAppended();
      return false;
    } catch (error) {
      deps.logger.error({ err: error, requestId: locals(res).requestId }, 'could not build the request record at the end of the answer');
      return false;
    }
  };

  const onClose = (req: IncomingMessage, res: ServerResponse, timing: RequestTiming) => {
    const facts = locals(res).facts;
    if (!facts) {
      if (res.statusCode === 401) deps.metrics.unauthenticatedRequests.inc({ route: locals(res).routeLabel ?? 'other' });
      return;
    }
    if (!producer || recordedAtEnd.has(res)) return;
    try {
      const record = toRequestRecord(locals(res).requestId, res, facts, timing);
      if (facts.keepBodies) record.bodies = bodiesOf(facts);
      producer.submit(record);
    } catch (error) {
      deps.logger.error({ err: error, requestId: locals(res).requestId }, 'could not build the request record');
    }
  };

  return { onClose, holdEnd: beforeEnd ? holdEnd : undefined, producer, close: async () => { await producer?.close(); } };
}
