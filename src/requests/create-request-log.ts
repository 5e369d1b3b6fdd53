/**
 * The API side of the request log (issue 22). A request whose key authenticated has its record in
 * Redis before its answer's last byte leaves (so a process killed right after answering loses none):
 * a whole paid answer's record rides in its settlement's script call, just before it is sent
 * (`riderAtSettlement`, no round trip of its own); any other answer's is appended when its last byte
 * is about to leave, which is held back until then (records-before-end.ts). Either way the record is
 * held by a durable stream producer (the same machinery as usage events: kept in memory until the
 * request-log worker confirms it in PostgreSQL, appended again if Redis loses it), in its account's
 * shard of the request-log stream. A streamed answer (settled after its end) gets a provisional record
 * at its end, and its final record when the response closes (appended off the request path,
 * coalesced), which replaces it in PostgreSQL. Requests refused before authentication are only
 * counted (`gateway_unauthenticated_requests_total`). Nothing here touches money.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { finalRecordIds } from '../db/repositories/request-records';
import type { Dependencies } from '../dependencies';
import type { RequestEndHold, RequestObserver, RequestSettlementRider, RequestTiming } from '../http/access-log';
import { locals, type RequestFacts } from '../http/request-context';
import {
  createDurableStreamProducer,
  type DurableStreamOptions,
  type DurableStreamProducer,
  type HeldEvent,
  type StreamRider,
} from '../redis/durable-stream-producer';
import { createRecordsBeforeEnd, type RecordsBeforeEnd } from './records-before-end';
import { parseRedactPaths, redactBody, redactTextBody } from './redact-body';
import type { RequestBodies, RequestRecord } from './request-record';

/**
 * Given to the access log: `onClose` records the request when its response closes; `holdEnd` puts the
 * record in Redis before the answer's last byte leaves; `riderAtSettlement` gives a whole answer's
 * record to its settlement instead.
 */
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
export function toRequestRecord(
  requestId: string,
  res: ServerResponse,
  facts: RequestFacts,
  timing: RequestTiming,
  ending = false,
): RequestRecord {
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
  const log = new RequestLogRecorder(deps, options);
  const { producer, beforeEnd } = log;
  return {
    onClose: log.onClose,
    holdEnd: beforeEnd ? log.holdEnd : undefined,
    riderAtSettlement: producer ? log.riderAtSettlement : undefined,
    producer,
    close: log.close,
  };
}

/** The producer of a process's request records, and what decides when each record reaches Redis. */
class RequestLogRecorder {
  readonly producer: DurableStreamProducer<RequestRecord> | undefined;
  readonly beforeEnd: RecordsBeforeEnd | undefined;
  private readonly settings: LogDependencies['config']['requestLog'];
  private readonly redactPaths: string[][];
  // Responses whose complete record is held by the producer (at settlement or at the end): nothing more is recorded at their close.
  private readonly recorded = new WeakSet<ServerResponse>();
  // Records built at settlement whose script did not append them: appended at the end as any other, or by the producer at the close.
  private readonly unridden = new WeakMap<ServerResponse, HeldEvent>();

  constructor(
    private readonly deps: LogDependencies,
    options: DurableStreamOptions,
  ) {
    this.settings = deps.config.requestLog;
    this.producer = !this.settings.enabled ? undefined : createRequestRecordProducer(deps, options);
    this.redactPaths = parseRedactPaths(this.settings.redactPaths);
    this.beforeEnd =
      this.producer &&
      createRecordsBeforeEnd(deps.redis, (error, records) => {
        deps.logger.warn(
          { err: error, records },
          'request records not appended before their answers ended; kept in memory and appended later',
        );
      });
  }

  readonly holdEnd: RequestEndHold = (res, timing, release) => {
    if (this.recorded.has(res)) return this.holdRecorded(res, release);
    const facts = locals(res).facts;
    const { producer, beforeEnd } = this;
    if (!facts || !producer || !beforeEnd?.ready()) return false;
    try {
      const record = toRequestRecord(locals(res).requestId, res, facts, timing, true);
      // The status line leaves with this end when nothing was sent yet: its time is now.
      record.ttfbMs ??= timing.durationMs;
      const stream = this.deps.redisKeys.accountRequestLogStream(facts.accountId);
      // A stream is settled (and its kept answer assembled) after its end: a final record follows at the close.
      if (facts.stream === true) {
        record.provisional = true;
        return beforeEnd.hold(stream, JSON.stringify(record), release);
      }
      if (facts.keepBodies) record.bodies = this.bodiesOf(facts);
      const held = producer.hold(record);
      if (!held) return false;
      this.recorded.add(res);
      // Once appended, the producer sheds the kept bodies (shedAfterAppend), as after its own appends.
      if (beforeEnd.hold(stream, held.payload, release, held)) return true;
      held.notAppended();
      return false;
    } catch (error) {
      this.deps.logger.error(
        { err: error, requestId: locals(res).requestId },
        'could not build the request record at the end of the answer',
      );
      return false;
    }
  };

  /**
   * A whole answer, settled and about to be sent in full (its status line, body and end leave
   * together right after): its complete record as of now rides in the settlement's script call.
   * It is final: if the client has gone meanwhile, the call was billed as answered and is recorded
   * so (nothing built at the close replaces it, as for a record appended at the end).
   */
  readonly riderAtSettlement: RequestSettlementRider = (res, timing) => {
    const facts = locals(res).facts;
    if (!facts || !this.producer || facts.stream === true) return undefined;
    try {
      const record = toRequestRecord(locals(res).requestId, res, facts, timing, true);
      record.ttfbMs ??= timing.durationMs;
      if (facts.keepBodies) record.bodies = this.bodiesOf(facts);
      const held = this.producer.hold(record);
      if (!held) return undefined;
      this.recorded.add(res);
      return this.rider(res, held, this.deps.redisKeys.accountRequestLogStream(facts.accountId));
    } catch (error) {
      this.deps.logger.error({ err: error, requestId: locals(res).requestId }, 'could not build the request record at settlement');
      return undefined;
    }
  };

  readonly onClose = (req: IncomingMessage, res: ServerResponse, timing: RequestTiming): void => {
    const facts = locals(res).facts;
    if (!facts) {
      if (res.statusCode === 401) this.deps.metrics.unauthenticatedRequests.inc({ route: locals(res).routeLabel ?? 'other' });
      return;
    }
    if (!this.producer) return;
    if (this.recorded.has(res)) {
      // Built at settlement, not appended, and the answer never ended: the producer appends it.
      this.unridden.get(res)?.notAppended();
      this.unridden.delete(res);
      return;
    }
    try {
      const record = toRequestRecord(locals(res).requestId, res, facts, timing);
      if (facts.keepBodies) record.bodies = this.bodiesOf(facts);
      this.producer.submit(record);
    } catch (error) {
      this.deps.logger.error({ err: error, requestId: locals(res).requestId }, 'could not build the request record');
    }
  };

  readonly close = async (): Promise<void> => {
    await this.producer?.close();
  };

  /** The settlement's rider for a held record: told once whether its script appended it. */
  private rider(res: ServerResponse, held: HeldEvent, stream: string): StreamRider {
    let told = false;
    const notAppended = () => {
      if (told) return;
      told = true;
      // Not yet handed to the producer: the end appends it before the last byte, as any other (holdRecorded).
      this.unridden.set(res, held);
      if (res.writableEnded || res.destroyed) this.holdRecorded(res, () => undefined);
    };
    return {
      stream,
      payload: `[${held.payload}]`,
      appended: (entryId) => {
        if (told) return;
        if (entryId === '') return notAppended();
        told = true;
        held.appended(entryId);
      },
      notAppended,
    };
  }

  /** Redis got the held record before this end (with the settlement), or gets it now, the end held until then. */
  private holdRecorded(res: ServerResponse, release: () => void): boolean {
    const held = this.unridden.get(res);
    if (!held) return false;
    this.unridden.delete(res);
    const stream = this.deps.redisKeys.accountRequestLogStream(locals(res).facts!.accountId);
    if (this.beforeEnd?.ready() && this.beforeEnd.hold(stream, held.payload, release, held)) return true;
    held.notAppended();
    return false;
  }

  private bodiesOf(facts: RequestFacts): RequestBodies {
    const { redactPaths, settings } = this;
    const request = facts.requestBody === undefined ? undefined : redactBody(facts.requestBody, redactPaths, settings.bodyMaxBytes);
    const response = facts.responseBody === undefined ? undefined : redactTextBody(facts.responseBody, redactPaths, settings.bodyMaxBytes);
    return {
      request: request?.text ?? null,
      response: response?.text ?? null,
      streamEvents: facts.streamEvents ?? null,
      truncated: request?.truncated === true || response?.truncated === true,
    };
  }
}

/** Records kept in memory until the request-log worker confirms them, in their account's shard of the stream. */
function createRequestRecordProducer(deps: LogDependencies, options: DurableStreamOptions): DurableStreamProducer<RequestRecord> {
  return createDurableStreamProducer<RequestRecord>(
    deps,
    {
      name: 'request-log-producer',
      streamOf: (record) => deps.redisKeys.accountRequestLogStream(record.accountId),
      channel: deps.redisKeys.requestLogWrittenChannel(),
      batchEntries: true,
      // Records wait up to 5 ms to share one append (they are held in memory either way).
      lingerMs: 5,
      // Kept bodies are not held in memory once in Redis: a stream Redis loses is appended again without them.
      shedAfterAppend: (record) => {
        delete record.bodies;
      },
      // A provisional row does not count: the final record is still to be written over it.
      written: (requestIds) => finalRecordIds(deps.db, requestIds),
    },
    options,
  );
}
