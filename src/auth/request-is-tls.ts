/** Whether the client reached us over TLS: directly, or through a trusted proxy that says so. */
import type { Request } from 'express';
import type { TLSSocket } from 'node:tls';
import { parseIpAddress } from './ip-address';
import { cidrContains, parseCidr } from './ip-rules';

export function requestIsTls(req: Request, trustedProxies: readonly string[]): boolean {
  if ((req.socket as Partial<TLSSocket>).encrypted === true) return true;
  const forwarded = req.headers['x-forwarded-proto'];
  const proto = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase();
  if (proto !== 'https') return false;
  const peer = parseIpAddress(req.socket.remoteAddress ?? '');
  return (
    peer !== undefined &&
    trustedProxies.some((entry) => {
      const block = parseCidr(entry);
      return block !== undefined && cidrContains(block, peer);
    })
  );
}
