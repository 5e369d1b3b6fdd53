/**
 * Who made a management change, for the audit log: the console user or the API key of the
 * management principal, and the caller's address (behind trusted proxies, the forwarded client).
 */
import type { Request, Response } from 'express';
import { createClientIpResolver } from './client-ip';
import { managementPrincipal } from './management-auth';
import type { Dependencies } from '../dependencies';
import type { AuditActor } from '../audit/record-audit';

export type AuditActorOf = (req: Request, res: Response) => AuditActor;

export function requestAddress(resolveIp: ReturnType<typeof createClientIpResolver>, req: Request): string | null {
  const forwarded = req.headers['x-forwarded-for'];
  return resolveIp(req.socket.remoteAddress, Array.isArray(forwarded) ? forwarded.join(',') : forwarded) ?? null;
}

export function createAuditActorOf(deps: Pick<Dependencies, 'config'>): AuditActorOf {
  const resolveIp = createClientIpResolver(deps.config.trustedProxies);
  return (req, res) => {
    const principal = managementPrincipal(res);
    const address = requestAddress(resolveIp, req);
    return principal.via === 'key'
      ? { type: 'api_key', id: principal.keyId ?? null, address }
      : { type: 'console_user', id: principal.userId ?? null, label: principal.userEmail ?? null, address };
  };
}
