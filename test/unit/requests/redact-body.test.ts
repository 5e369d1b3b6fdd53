import { parseRedactPaths, redactBody, redactTextBody } from '../../../src/requests/redact-body';

describe('kept bodies are redacted', () => {
  it('credential-named fields, bearer tokens, key-shaped strings and configured paths; the input untouched', () => {
    const body = {
      metadata: { user_id: 'u-1', api_key: 'sk-live-abcdefghijklmnop', nothing: null, token: 42 },
      messages: [
        { content: 'use Bearer abcdefghijklmno now', key: 'AIzaSyA1234567890123456789012' },
        { content: 'eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0NTY3.SflKxwRJSMeKKF2QT4fw' },
      ],
      tools: [{ secret: 's3cr3t-value', name: 'kept' }],
      Authorization: 'Bearer "quoted"',
    };
    const before = JSON.stringify(body);
    const { text, truncated } = redactBody(body, parseRedactPaths(['metadata.user_id', 'tools[].name']), 10_000);
    expect(truncated).toBe(false);
    expect(JSON.parse(text)).toEqual({
      metadata: { user_id: '[redacted]', api_key: '[redacted]', nothing: null, token: '[redacted]' },
      messages: [{ content: 'use Bearer [redacted] now', key: '[redacted]' }, { content: '[redacted]' }],
      tools: [{ secret: '[redacted]', name: '[redacted]' }],
      Authorization: '[redacted]',
    });
    expect(JSON.stringify(body)).toBe(before);
  });

  it('cuts at the cap (never inside a character) and redacts non-JSON text', () => {
    const cut = redactBody({ text: 'é'.repeat(1000) }, [], 101);
    expect(cut.truncated).toBe(true);
    expect(Buffer.byteLength(cut.text)).toBeLessThanOrEqual(101);
    expect(cut.text).not.toContain('\uFFFD');
    expect(redactTextBody('data: token sk-abcdefghijklmnopqrs\n\n', [], 1000).text).toBe('data: token [redacted]\n\n');
  });

  it('finds credential fields however the JSON is spaced, whatever their case, and only scalar values of those names', () => {
    const pretty =
      '{\n  "Password" : "p\\"w:d",\n  "note": "a: b, \\"token\\": c",\n  "client_secret":\t12.5e3,\n  "ok": true,\n  "credentials": {"id_token": false}\n}';
    const { text } = redactTextBody(pretty, [], 10_000);
    expect(JSON.parse(text)).toEqual({
      Password: '[redacted]',
      note: 'a: b, "token": c',
      client_secret: '[redacted]',
      ok: true,
      credentials: { id_token: '[redacted]' },
    });
    expect(text).toContain('"Password" : "[redacted]"');
    // Nothing to redact: the very same text back.
    const plain = JSON.stringify({ messages: [{ role: 'user', content: 'lorem: ipsum '.repeat(300) }] });
    expect(redactTextBody(plain, [], 100_000).text).toBe(plain);
  });
});
