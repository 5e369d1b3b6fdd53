import { SseParser, sseFrame } from '../../../../src/protocols/shared/sse-parser';
import { JsonArrayStreamParser } from '../../../../src/protocols/shared/json-array-stream-parser';

const STREAM = 'event: a\r\ndata: {"x":1}\r\n\r\n: keepalive\n\nevent: b\ndata: line1\ndata: line2\n\ndata: last\n\r\n';

function splitAt(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
}

describe('SseParser', () => {
  const whole = (() => {
    const p = new SseParser();
    return [...p.push(STREAM), ...p.end()];
  })();

  it('parses events, multi-line data, comments and CRLF', () => {
    expect(whole).toEqual([
      { event: 'a', data: '{"x":1}', id: undefined },
      { event: 'b', data: 'line1\nline2', id: undefined },
      { event: undefined, data: 'last', id: undefined },
    ]);
  });

  it.each([1, 2, 3, 5, 7])('gives the same events for any split (pieces of %i)', (size) => {
    const parser = new SseParser();
    const events = splitAt(STREAM, size).flatMap((piece) => parser.push(piece));
    expect([...events, ...parser.end()]).toEqual(whole);
  });

  it('delivers a final event without its blank line at end()', () => {
    const parser = new SseParser();
    expect(parser.push('data: tail')).toEqual([]);
    expect(parser.end()).toEqual([{ event: undefined, data: 'tail', id: undefined }]);
  });

  it('does not rescan a long partial line fed in tiny pieces', () => {
    // Scanning cost grows linearly: a 200 kB line one character at a time must not be quadratic.
    const parser = new SseParser();
    const line = `data: ${'x'.repeat(200_000)}\n\n`;
    let events = 0;
    for (const c of line) events += parser.push(c).length;
    expect(events).toBe(1);
  });

  it('frames events with and without names', () => {
    expect(sseFrame({ a: 1 }, 'ping')).toBe('event: ping\ndata: {"a":1}\n\n');
    expect(sseFrame('[DONE]')).toBe('data: [DONE]\n\n');
  });
});

describe('JsonArrayStreamParser', () => {
  const text = '[{"a":"x]}","b":[1,{"c":2}]}\n,{"d":"\\"q\\""}]';
  it.each([1, 3, 100])('yields each element as it completes (pieces of %i)', (size) => {
    const parser = new JsonArrayStreamParser();
    const out = splitAt(text, size).flatMap((piece) => parser.push(piece));
    expect(out).toEqual([{ a: 'x]}', b: [1, { c: 2 }] }, { d: '"q"' }]);
    expect(parser.complete).toBe(true);
  });
});
