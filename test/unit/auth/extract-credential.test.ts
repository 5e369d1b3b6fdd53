import { extractCredential } from '../../../src/auth/extract-credential';

const KEY = 'sk-svc-xapikeyxapikeyxapikeyxapikey';
const BEARER = 'sk-svc-bearerbearerbearerbearerbear';
const GOOG = 'sk-svc-googgooggooggooggooggooggoog';
const QUERY = 'sk-svc-queryqueryqueryqueryqueryqu';

describe('extractCredential', () => {
  const both = { 'x-api-key': KEY, authorization: `Bearer ${BEARER}` };

  it.each(['messages', 'chat', 'gateway'] as const)('%s: x-api-key wins over Bearer, Bearer alone works', (surface) => {
    expect(extractCredential(surface, both, {})).toBe(KEY);
    expect(extractCredential(surface, { authorization: `Bearer ${BEARER}` }, {})).toBe(BEARER);
    expect(extractCredential(surface, { 'x-api-key': KEY }, {})).toBe(KEY);
    expect(extractCredential(surface, {}, { key: QUERY })).toBeUndefined();
  });

  it('responses: Bearer only', () => {
    expect(extractCredential('responses', both, {})).toBe(BEARER);
    expect(extractCredential('responses', { 'x-api-key': KEY }, {})).toBeUndefined();
  });

  it('generate-content: x-goog-api-key, then ?key=, then the other header shapes', () => {
    expect(extractCredential('generate-content', { 'x-goog-api-key': GOOG, ...both }, { key: QUERY })).toBe(GOOG);
    expect(extractCredential('generate-content', both, { key: QUERY })).toBe(QUERY);
    expect(extractCredential('generate-content', both, {})).toBe(KEY);
    expect(extractCredential('generate-content', { authorization: `Bearer ${BEARER}` }, {})).toBe(BEARER);
    expect(extractCredential('generate-content', {}, { key: [QUERY, 'other'] })).toBe(QUERY);
  });

  it('ignores empty values, other schemes and malformed Bearer headers', () => {
    expect(extractCredential('chat', { 'x-api-key': '  ', authorization: `Bearer ${BEARER}` }, {})).toBe(BEARER);
    expect(extractCredential('chat', { authorization: `Basic ${BEARER}` }, {})).toBeUndefined();
    expect(extractCredential('chat', { authorization: 'Bearer' }, {})).toBeUndefined();
    expect(extractCredential('chat', { authorization: `Bearer ${BEARER} extra` }, {})).toBeUndefined();
    expect(extractCredential('chat', { authorization: `bearer   ${BEARER}` }, {})).toBe(BEARER);
    expect(extractCredential('generate-content', {}, { key: '' })).toBeUndefined();
    expect(extractCredential('generate-content', {}, { key: { nested: 'x' } })).toBeUndefined();
  });
});
