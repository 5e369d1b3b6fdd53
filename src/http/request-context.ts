/** Per-request values kept on `res.locals`, typed in one place. */
import type { Response } from 'express';
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

export function locals(res: Response): RequestLocals {
  return res.locals as RequestLocals;
}
