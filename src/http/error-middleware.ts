/**
 * The only place that writes an error response before the first byte. Renders the error in the
 * envelope of the request's surface (its protocol, or the gateway's own OpenAI-style envelope),
 * with the accounting headers, and never with a stack trace. Express routes reach it as the error
 * middleware; the inference fast path (no express) calls `renderThrown` directly.
 */
import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import { failedDependency } from '../errors/dependency-failure';
import type { GatewayError } from '../errors/gateway-error';
import type { RenderedError } from '../protocols/codec';
import type { Logger } from './logger';
import { renderOpenAiStyleError } from '../protocols/shared/openai-error-envelope';
import { reportDegraded } from './report-degraded';
import { locals, noteFailure, type ErrorSurface } from './request-context';
import { sendJson, sendJsonText } from './send-json';
import { toGatewayError } from './to-gateway-error';

export type ErrorRenderers = Partial<Record<ErrorSurface, (error: GatewayError) => RenderedError>>;

export function writeError(res: ServerResponse, error: GatewayError, renderers: ErrorRenderers): void {
  if (error.verbatim) {
    // Native pass-through: the upstream's answer as it said it, with the gateway's accounting headers.
    const headers = { ...(locals(res).accountingHeaders ?? {}), ...error.verbatim.headers };
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    sendJsonText(res, error.verbatim.status, error.verbatim.body);
    return;
  }
  const surface = locals(res).surface ?? 'gateway';
  const render = renderers[surface] ?? renderOpenAiStyleError;
  const rendered = render(error);
  const headers = { ...(locals(res).accountingHeaders ?? {}), ...(error.headers ?? {}), ...rendered.headers };
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  const facts = locals(res).facts;
  if (facts?.keepBodies) facts.responseBody = JSON.stringify(rendered.body);
  sendJson(res, rendered.status, rendered.body);
}

/** Anything thrown by a route → its rendered error, or the end of a response already under way. */
export function renderThrown(logger: Logger, renderers: ErrorRenderers, thrown: unknown, path: string, res: ServerResponse): void {
  const error = toGatewayError(thrown);
  noteFailure(res, error.kind, false);
  if (error.kind === 'internal') {
    logger.error({ requestId: locals(res).requestId, err: error.cause ?? error, path }, 'unhandled error');
  } else if (error.kind === 'unavailable') {
    reportDegraded(logger, failedDependency(error.cause) ?? 'redis', error.cause ?? error);
  }
  if (res.headersSent) {
    // Streams render their own error frames; here the connection can only be ended.
    res.end();
    return;
  }
  writeError(res, error, renderers);
}

export function createErrorMiddleware(logger: Logger, renderers: ErrorRenderers): ErrorRequestHandler {
  return (thrown, req, res, next) => {
    void next;
    renderThrown(logger, renderers, thrown, req.path, res);
  };
}
