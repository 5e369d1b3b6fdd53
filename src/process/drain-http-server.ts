/**
 * Graceful stop of an HTTP server (SIGTERM): stop accepting, let requests in flight and their
 * streams finish, bounded by a grace period, then cut whatever is left. Keep-alive connections are
 * closed as soon as they are idle, so a load balancer opens its next request elsewhere. Subscriptions
 * (requests that never end by themselves, like the task event stream) are ended at once: their
 * clients reconnect to another instance.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface DrainOptions {
  graceMs: number;
  /** Requests ended at the start of the drain instead of awaited. */
  isSubscription?: (req: IncomingMessage) => boolean;
  /** How often idle keep-alive connections are closed while draining (default 50 ms). */
  idleSweepMs?: number;
}

export interface DrainResult {
  /** Requests still running when the grace period ran out (their connections were cut). */
  cut: number;
}

export interface HttpDrainer {
  readonly inFlight: number;
  readonly draining: boolean;
  drain(options: DrainOptions): Promise<DrainResult>;
}

/** Starts counting the server's requests; call once, right after the server is created. */
export function trackHttpServer(server: Server): HttpDrainer {
  const running = new Map<ServerResponse, IncomingMessage>();
  let draining = false;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    running.set(res, req);
    // The response in flight during a drain is the connection's last one.
    if (draining && !res.headersSent) res.setHeader('connection', 'close');
    res.once('close', () => running.delete(res));
  });

  return {
    get inFlight() {
      return running.size;
    },
    get draining() {
      return draining;
    },
    async drain(options) {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const [res, req] of running) {
        if (options.isSubscription?.(req)) res.end();
        else if (!res.headersSent) res.setHeader('connection', 'close');
      }
      server.closeIdleConnections();
      const sweep = setInterval(() => server.closeIdleConnections(), options.idleSweepMs ?? 50);
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<'expired'>((resolve) => {
        timer = setTimeout(() => resolve('expired'), options.graceMs);
      });
      const outcome = await Promise.race([closed.then(() => 'closed' as const), expired]);
      clearInterval(sweep);
      clearTimeout(timer);
      if (outcome === 'closed') return { cut: 0 };
      const cut = running.size;
      server.closeAllConnections();
      await closed;
      return { cut };
    },
  };
}
