/** Request ids: `req_` + 24 random hex characters, on `res.locals` and in `x-request-id`/`request-id`. */
import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { randomHex } from './random-pool';
import { locals } from './request-context';

export function newRequestId(): string {
  return `req_${randomHex(12)}`;
}

/** Gives the response its request id (locals and both headers); returns it. */
export function assignRequestId(res: ServerResponse): string {
  const id = newRequestId();
  locals(res).requestId = id;
  if (!locals(res).surface) locals(res).surface = 'gateway';
  res.setHeader('x-request-id', id);
  res.setHeader('request-id', id);
  return id;
}

export function requestIdMiddleware(): RequestHandler {
  return (_req, res, next) => {
    assignRequestId(res);
    next();
  };
}
