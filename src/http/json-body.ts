/** JSON body parsing with the configured size cap; errors become GatewayErrors via toGatewayError. */
import express, { type RequestHandler } from 'express';

export function jsonBody(maxBytes: number): RequestHandler {
  // `type` accepts bodies sent without a content type too: clients omit it more often than they lie.
  return express.json({ limit: maxBytes, type: () => true, strict: false });
}
