/** The headers every streamed answer starts with. */
import type { ServerResponse } from 'node:http';
import { CODECS } from './codec-registry';
import type { RelayPlan } from './relay-plan';
import { warningHeader } from './warning-header';

/** A stream answer's headers: the protocol's content type, no caching or proxy buffering, the accounting and warning headers. */
export function setStreamHeaders(plan: RelayPlan, res: ServerResponse): void {
  const headers: Record<string, string> = {
    'content-type': CODECS[plan.protocol].inbound.streamContentType(plan.streamOptions),
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    ...plan.admitted.headers(),
  };
  const warnings = warningHeader(plan.warnings);
  if (warnings) headers['x-gateway-warnings'] = warnings;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}
