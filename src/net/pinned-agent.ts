/**
 * An undici Agent whose every connection goes to one address the outbound guard checked: the URL's
 * host name is kept (Host header, TLS server name and certificate check) but never looked up again,
 * so a DNS answer that changes between the check and the connection (rebinding) is never used.
 * One agent per checked target; close it when its request is done (close waits for a body still
 * being read).
 */
import { isIP } from 'node:net';
import { Agent } from 'undici';

export function createPinnedAgent(address: string, options: { connectTimeoutMs?: number } = {}): Agent {
  return new Agent({
    connect: {
      ...(options.connectTimeoutMs === undefined ? {} : { timeout: options.connectTimeoutMs }),
      lookup: (_host, _lookupOptions, callback) => callback(null, [{ address, family: isIP(address) }]),
    },
  });
}
