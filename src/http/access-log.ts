/** One log line and one metric sample per request, with the request id; never the secret. */
import type { RequestHandler } from 'express';
import { redactText, type Logger } from './logger';
import type { Metrics } from './metrics';
import { locals } from './request-context';

export function accessLog(logger: Logger, metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = locals(res).routeLabel ?? (res.statusCode === 404 ? 'unmatched' : req.baseUrl + (req.route?.path ?? req.path));
      const labels = { route: String(route), method: req.method, status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, seconds);
      logger.info({
        requestId: locals(res).requestId, method: req.method, url: redactText(req.originalUrl), status: res.statusCode,
        ms: Math.round(seconds * 1000), aborted: !res.writableFinished, headers: req.headers,
      }, 'request');
    });
    next();
  };
}
