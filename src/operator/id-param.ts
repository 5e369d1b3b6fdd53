import type { Request } from 'express';
import { GatewayError } from '../errors/gateway-error';

/** An id parameter (`:id` unless named) of an operator route; anything that cannot be an id names nothing, so it answers 404. */
export function idParam(req: Request, what: string, name: 'id' | 'accountId' = 'id'): number {
  const raw = req.params[name];
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,15}$/.test(raw)) throw new GatewayError('not_found', `${what} not found`);
  return Number(raw);
}
