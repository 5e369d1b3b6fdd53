/**
 * Credential checks, each in its family's own way and wording. The configured key is accepted, and
 * so is `<key>.<name>`: another account of the same provider, with its own prompt cache (providers
 * cache per account), so a test can put several upstream accounts in one group. `<key>.forbidden`
 * is a valid key without permission: each provider's 403.
 */
import { anthropicError, anthropicInvalid, googleError, openaiError, type ErrorFamily, type SimHttpError } from '../sim-error';
import type { SimContext } from './context';

export function authenticate(context: SimContext, auth?: 'azure'): void {
  const checks: Record<ErrorFamily, (context: SimContext) => string> = {
    anthropic: authenticateAnthropic,
    openai: authenticateOpenAI,
    google: authenticateGoogle,
  };
  context.credential = auth === 'azure' ? authenticateAzure(context) : checks[context.family](context);
  if (context.credential === `${context.state.options.apiKey}.forbidden`) throw forbidden(context.family, auth);
}

/** What each provider answers a key it knows but that may not do this (a restricted key, a firewall). */
function forbidden(family: ErrorFamily, auth?: 'azure'): SimHttpError {
  if (auth === 'azure') return openaiError(403, 'Access denied due to Virtual Network/Firewall rules.', { code: '403' });
  switch (family) {
    case 'anthropic':
      return anthropicError(403, 'permission_error', 'Your API key does not have permission to use the specified resource.');
    case 'openai':
      return openaiError(403, 'You have insufficient permissions for this operation. Missing scopes: api.model.read.', {
        type: 'invalid_request_error',
      });
    case 'google':
      return googleError(403, 'The caller does not have permission', 'PERMISSION_DENIED');
  }
}

function accepted(context: SimContext, key: string): boolean {
  const configured = context.state.options.apiKey;
  return key === configured || (key.startsWith(`${configured}.`) && /^[A-Za-z0-9_-]+$/.test(key.slice(configured.length + 1)));
}

function header(context: SimContext, name: string): string | undefined {
  const value = context.request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function bearer(context: SimContext): string | undefined {
  const value = header(context, 'authorization');
  const match = value === undefined ? null : /^Bearer\s+(.+)$/i.exec(value.trim());
  return match === null ? undefined : match[1];
}

function authenticateAnthropic(context: SimContext): string {
  const key = header(context, 'x-api-key') ?? bearer(context);
  if (key === undefined || key === '') throw anthropicError(401, 'authentication_error', 'x-api-key header is required');
  if (!accepted(context, key)) throw anthropicError(401, 'authentication_error', 'invalid x-api-key');
  const version = header(context, 'anthropic-version');
  if (version === undefined) throw anthropicInvalid('anthropic-version: header is required');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(version)) throw anthropicInvalid(`anthropic-version: invalid version "${version}"`);
  return key;
}

function authenticateOpenAI(context: SimContext): string {
  const key = bearer(context);
  if (key === undefined || key === '') {
    throw openaiError(
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
    );
  }
  if (!accepted(context, key)) {
    throw openaiError(
      401,
      `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      { code: 'invalid_api_key' },
    );
  }
  return key;
}

function authenticateGoogle(context: SimContext): string {
  const key = header(context, 'x-goog-api-key') ?? context.query.get('key') ?? undefined;
  if (key === undefined || key === '') {
    throw googleError(
      403,
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      'PERMISSION_DENIED',
    );
  }
  if (!accepted(context, key)) {
    // Google answers a wrong key with 400, not 401.
    throw googleError(400, 'API key not valid. Please pass a valid API key.', 'INVALID_ARGUMENT', [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' },
      },
    ]);
  }
  return key;
}

/** Azure OpenAI: the key in `api-key`; a wrong or missing one is a 401 naming the key and the endpoint. */
function authenticateAzure(context: SimContext): string {
  const key = header(context, 'api-key');
  if (key === undefined || key === '' || !accepted(context, key)) {
    throw openaiError(
      401,
      'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
      { code: '401' },
    );
  }
  return key;
}

function maskKey(key: string): string {
  return key.length <= 8 ? '***' : `${key.slice(0, 3)}***${key.slice(-4)}`;
}
