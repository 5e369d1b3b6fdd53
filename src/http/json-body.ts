/** JSON body parsing with the configured size cap and depth bound; errors become GatewayErrors via toGatewayError. */
import express, { type RequestHandler } from 'express';
import { assertJsonDepth } from './assert-json-depth';

export function jsonBody(maxBytes: number): RequestHandler {
  // `type` accepts bodies sent without a content type too: clients omit it more often than they lie.
  const parse = express.json({ limit: maxBytes, type: () => true, strict: false });
  return (req, res, next) => {
    parse(req, res, (error?: unknown) => {
      if (error) {
        next(error);
        return;
      }
      try {
        assertJsonDepth(req.body);
        next();
      } catch (depthError) {
        next(depthError);
      }
    });
  };
}
