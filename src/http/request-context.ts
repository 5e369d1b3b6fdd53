/** Per-request values kept on `res.locals` (express sets it; the inference fast path creates it), typed in one place. */
import type { ServerResponse } from 'node:http';
import type { Protocol } from '../ir/protocol';

export type ErrorSurface = Protocol | 'gateway';

export interface RequestLocals {
  requestId: string;
  /** Which envelope errors of this request are rendered in. */
  surface: ErrorSurface;
  /** Route label for metrics (the route pattern, never the raw URL). */
  routeLabel?: string;
  /** Accounting headers computed by admission, added to every response including errors. */
  accountingHeaders?: Record<string, string>;
}

type WithLocals = ServerResponse & { locals?: Record<string, unknown> };

/** Works on an express Response and on a bare node ServerResponse alike. */
export function locals(res: ServerResponse): RequestLocals {
  const holder = res as WithLocals;
  holder.locals ??= {};
  return holder.locals as unknown as RequestLocals;
}
