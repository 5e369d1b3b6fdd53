import { extractCredential, GATEWAY_CREDENTIALS, type CredentialLocation } from '../../../src/auth/extract-credential';
import type { Protocol } from '../../../src/ir/protocol';
import { CODECS } from '../../../src/relay/codec-registry';

/** Where a surface reads its key: each protocol's codec names its own places. */
const at = (surface: Protocol | 'gateway'): readonly CredentialLocation[] =>
  surface === 'gateway' ? GATEWAY_CREDENTIALS : CODECS[surface].inbound.credentials;

const KEY = 'sk-svc-xapikeyxapikeyxapikeyxapikey';
const BEARER = 'sk-svc-bearerbearerbearerbearerbear';
const GOOG = 'sk-svc-googgooggooggooggooggooggoog';
const QUERY = 'sk-svc-queryqueryqueryqueryqueryqu';

describe('extractCredential', () => {
  const both = { 'x-api-key': KEY, authorization: `Bearer ${BEARER}` };

  it.each(['messages', 'chat', 'gateway'] as const)('%s: x-api-key wins over Bearer, Bearer alone works', (surface) => {
    expect(extractCredential(at(surface), both, {})).toBe(KEY);
    expect(extractCredential(at(surface), { authorization: `Bearer ${BEARER}` }, {})).toBe(BEARER);
    expect(extractCredential(at(surface), { 'x-api-key': KEY }, {})).toBe(KEY);
    expect(extractCredential(at(surface), {}, { key: QUERY })).toBeUndefined();
  });

  it('responses: Bearer only', () => {
    expect(extractCredential(at('responses'), both, {})).toBe(BEARER);
    expect(extractCredential(at('responses'), { 'x-api-key': KEY }, {})).toBeUndefined();
  });

  it('generate-content: x-goog-api-key, then ?key=, then the other header shapes', () => {
    expect(extractCredential(at('generate-content'), { 'x-goog-api-key': GOOG, ...both }, { key: QUERY })).toBe(GOOG);
    expect(extractCredential(at('generate-content'), both, { key: QUERY })).toBe(QUERY);
    expect(extractCredential(at('generate-content'), both, {})).toBe(KEY);
    expect(extractCredential(at('generate-content'), { authorization: `Bearer ${BEARER}` }, {})).toBe(BEARER);
    expect(extractCredential(at('generate-content'), {}, { key: [QUERY, 'other'] })).toBe(QUERY);
  });

  it('ignores empty values, other schemes and malformed Bearer headers', () => {
    expect(extractCredential(at('chat'), { 'x-api-key': '  ', authorization: `Bearer ${BEARER}` }, {})).toBe(BEARER);
    expect(extractCredential(at('chat'), { authorization: `Basic ${BEARER}` }, {})).toBeUndefined();
    expect(extractCredential(at('chat'), { authorization: 'Bearer' }, {})).toBeUndefined();
    expect(extractCredential(at('chat'), { authorization: `Bearer ${BEARER} extra` }, {})).toBeUndefined();
    expect(extractCredential(at('chat'), { authorization: `bearer   ${BEARER}` }, {})).toBe(BEARER);
    expect(extractCredential(at('generate-content'), {}, { key: '' })).toBeUndefined();
    expect(extractCredential(at('generate-content'), {}, { key: { nested: 'x' } })).toBeUndefined();
  });
});
