/**
 * The services an API process is made of, built from its dependencies. Each is constructed by its own
 * module's factory; this file only wires them.
 */
import { createKeyAuthenticator } from './auth/create-key-authenticator';
import type { KeyAuthenticator } from './auth/key-authenticator';
import { createUsageRecorder } from './billing/create-usage-recorder';
import type { UsageRecorder } from './billing/usage-event';
import type { Dependencies } from './dependencies';
import { createAdmission, type GatewayAdmission } from './limits/create-admission';
import { createRequestLog, type RequestLog } from './requests/create-request-log';
import { createResponsesStore } from './relay/responses-store';
import type { RelayServices } from './relay/relay-services';
import { createUpstreamClient } from './upstream/upstream-client';
import { createUpstreamDirectory } from './upstream/upstream-directory';
import { createUpstreamHealth, type UpstreamHealth } from './upstream/upstream-health';

export interface Services extends RelayServices {
  authenticator: KeyAuthenticator;
  admission: GatewayAdmission;
  usage: UsageRecorder;
  /** Upstream cooldowns and failures shared by every API process (the directory routes with it). */
  upstreamHealth: UpstreamHealth;
  requestLog: RequestLog;
  close(): Promise<void>;
}

export function createServices(deps: Dependencies): Services {
  const authenticator = createKeyAuthenticator(deps);
  const usage = createUsageRecorder(deps);
  const upstreamClient = createUpstreamClient(deps.config.upstream);
  const health = createUpstreamHealth(deps);
  const upstreams = createUpstreamDirectory({
    db: deps.db,
    crypto: deps.crypto,
    clock: deps.clock,
    health,
    changes: {
      subscriber: deps.subscriber,
      channel: deps.redisKeys.upstreamsChangedChannel(),
      onError: (error) => deps.logger.warn({ err: error }, 'upstream list refresh failed; keeping the previous list'),
    },
  });
  const requestLog = createRequestLog(deps);
  return {
    authenticator,
    admission: createAdmission(deps),
    usage,
    upstreamHealth: health,
    upstreams,
    requestLog,
    upstreamClient,
    responses: createResponsesStore(deps.db),
    async close() {
      upstreams.close();
      await usage.close();
      await requestLog.close();
      await authenticator.close();
      await upstreamClient.close();
      health.close();
    },
  };
}
