/**
 * A key used from an address its IP rules refuse: 403 `permission`. Raised by the key authenticator
 * (so every key-authenticated route enforces the rules) and carrying the key, so a surface that
 * sends the accounting headers on refusals can still look them up.
 */
import { GatewayError } from '../errors/gateway-error';
import type { AuthenticatedKey } from './authenticated-key';
import type { IpRuleVerdict } from './ip-rules';

export function ipRefusalMessage(verdict: Exclude<IpRuleVerdict, 'allowed'>, clientIp: string): string {
  return verdict === 'blacklisted'
    ? `requests from ${clientIp} are blocked for this API key`
    : `requests from ${clientIp} are not allowed for this API key (IP whitelist)`;
}

export class IpRuleRefusal extends GatewayError {
  constructor(
    readonly key: AuthenticatedKey,
    clientIp: string,
    verdict: Exclude<IpRuleVerdict, 'allowed'>,
  ) {
    super('permission', ipRefusalMessage(verdict, clientIp));
  }
}
