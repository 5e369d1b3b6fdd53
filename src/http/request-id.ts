/** Request ids: `req_` + 24 random hex characters, on `res.locals` and in `x-request-id`/`request-id`. */
import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';
import { locals } from './request-context';

export function newRequestId(): string {
  return `req_${randomBytes(12).toString('hex')}`;
}

export function requestIdMiddleware(): RequestHandler {
  return (_req, res, next) => {
    const id = newRequestId();
    locals(res).requestId = id;
    if (!locals(res).surface) locals(res).surface = 'gateway';
    res.setHeader('x-request-id', id);
    res.setHeader('request-id', id);
    next();
  };
}
