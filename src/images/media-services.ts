/** What the images and tasks routers are built from, besides the process dependencies. */
import type { KeyAuthenticator } from '../auth/key-authenticator';
import type { UsageRecorder } from '../billing/usage-event';
import type { Admission } from '../limits/admission';
import type { UpstreamClient } from '../upstream/upstream-client';
import type { UpstreamDirectory } from '../upstream/upstream-directory';

export interface MediaServices {
  authenticator: KeyAuthenticator;
  admission: Admission;
  upstreams: UpstreamDirectory;
  upstreamClient: UpstreamClient;
  usage: UsageRecorder;
}
