import type { KeyAuthenticator } from '../auth/key-authenticator';
import type { UsageRecorder } from '../billing/usage-event';
import type { GatewayAdmission } from '../limits/create-admission';
import type { UpstreamClient } from '../upstream/upstream-client';
import type { UpstreamDirectory } from '../upstream/upstream-directory';
import type { ResponsesStore } from './responses-store';

/** What the inference relay is built from, besides the process dependencies. */
export interface RelayServices {
  authenticator: KeyAuthenticator;
  admission: GatewayAdmission;
  usage: UsageRecorder;
  upstreams: UpstreamDirectory;
  upstreamClient: UpstreamClient;
  responses: ResponsesStore;
}
