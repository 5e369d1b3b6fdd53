/**
 * A stand-in for the inference relay (the lead's issue 5), wired the way the relay is expected to
 * use these seams: credential → authenticate → client IP → admit → settle/release, accounting
 * headers on every answer, and a stream cut with the auth error frame when its key is invalidated.
 */
import { Router, type Request, type Response } from 'express';
import { resolveClientIp } from '../../../src/auth/client-ip';
import { extractCredential, GATEWAY_CREDENTIALS } from '../../../src/auth/extract-credential';
import { CODECS } from '../../../src/relay/codec-registry';
import { IpRuleRefusal } from '../../../src/auth/ip-refusal';
import type { KeyAuthenticator } from '../../../src/auth/key-authenticator';
import type { Dependencies } from '../../../src/dependencies';
import { GatewayError } from '../../../src/errors/gateway-error';
import { isProtocol } from '../../../src/ir/protocol';
import { locals } from '../../../src/http/request-context';
import type { GatewayAdmission } from '../../../src/limits/create-admission';

function surfaceOf(req: Request): 'messages' | 'responses' | 'chat' | 'generate-content' | 'gateway' {
  const surface = req.query.surface;
  return isProtocol(surface) ? surface : 'gateway';
}

function forwardedFor(req: Request): string | undefined {
  const value = req.headers['x-forwarded-for'];
  return Array.isArray(value) ? value.join(',') : value;
}

export function createProbeRouter(deps: Dependencies, authenticator: KeyAuthenticator, admission: GatewayAdmission): Router {
  const router = Router();

  async function admitRequest(req: Request, res: Response) {
    const surface = surfaceOf(req);
    const credential = extractCredential(
      surface === 'gateway' ? GATEWAY_CREDENTIALS : CODECS[surface].inbound.credentials,
      req.headers,
      req.query as Record<string, unknown>,
    );
    if (!credential) throw new GatewayError('authentication', 'missing API key');
    const clientIp = resolveClientIp(req.socket.remoteAddress, forwardedFor(req), deps.config.trustedProxies);
    const key = await authenticator.authenticate(credential, clientIp).catch(async (error: unknown) => {
      if (error instanceof IpRuleRefusal)
        locals(res).accountingHeaders = await admission.peekHeaders(error.key, surface === 'gateway' ? undefined : surface);
      throw error;
    });
    const body = (req.body ?? {}) as { reserve?: number };
    const ticket = await admission.admit({
      key,
      clientIp,
      requestId: locals(res).requestId,
      reserveCredits: body.reserve ?? 0,
      takesLease: true,
      surface: surface === 'gateway' ? undefined : surface,
    });
    return { key, clientIp, ticket };
  }

  /** One billed request: `cost` credits, or a failure (`fail: true`) that is released, hence free. */
  router.post('/v1/probe', async (req: Request, res: Response) => {
    const { clientIp, ticket } = await admitRequest(req, res);
    const body = (req.body ?? {}) as { cost?: number; fail?: boolean };
    if (body.fail) {
      await ticket.release();
      throw new GatewayError('upstream_error', 'upstream failed', { headers: ticket.headers() });
    }
    const headers = await ticket.settle(body.cost ?? 0);
    res.set(headers).json({ ok: true, clientIp });
  });

  /** A slow stream: a tick every `interval` ms, `ticks` times; cut with an auth error frame if the key dies. */
  router.get('/v1/stream', async (req: Request, res: Response) => {
    const { key, ticket } = await admitRequest(req, res);
    const ticks = Number(req.query.ticks ?? 10);
    const interval = Number(req.query.interval ?? 20);
    res.set(ticket.headers());
    res.setHeader('content-type', 'text/event-stream');
    res.flushHeaders();
    await new Promise<void>((resolve) => {
      let sent = 0;
      const timer = setInterval(() => {
        res.write(`data: {"tick":${sent}}\n\n`);
        if (++sent >= ticks) finish(false);
      }, interval);
      const unsubscribe = authenticator.onInvalidated(key.secretHmac, () => finish(true));
      function finish(cut: boolean) {
        clearInterval(timer);
        unsubscribe();
        if (cut) res.write('event: error\ndata: {"type":"error","error":{"type":"authentication_error","message":"API key revoked"}}\n\n');
        res.end();
        void (cut ? ticket.release() : ticket.settle(0)).finally(resolve);
      }
    });
  });

  return router;
}
