import { restoreToolName, sanitizeToolName } from '../../../../src/protocols/shared/tool-names';

describe('sanitizeToolName (pitfall 8: function-name rules differ)', () => {
  it('keeps safe names and maps unsafe ones reversibly', () => {
    const reverse: Record<string, string> = {};
    expect(sanitizeToolName('get_weather', reverse)).toBe('get_weather');
    const safe = sanitizeToolName('weather.get/v2', reverse);
    expect(safe).toMatch(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/);
    expect(restoreToolName(safe, reverse)).toBe('weather.get/v2');
    expect(restoreToolName('get_weather', reverse)).toBe('get_weather');
  });

  it('never lets a changed name collide with a real one, in either order', () => {
    const first: Record<string, string> = {};
    const a = sanitizeToolName('a_b', first);
    const b = sanitizeToolName('a.b', first);
    expect(a).not.toBe(b);
    expect([restoreToolName(a, first), restoreToolName(b, first)]).toEqual(['a_b', 'a.b']);
    const second: Record<string, string> = {};
    const c = sanitizeToolName('a.b', second);
    const d = sanitizeToolName('a_b', second);
    expect(c).not.toBe(d);
    expect([restoreToolName(c, second), restoreToolName(d, second)]).toEqual(['a.b', 'a_b']);
  });

  it('substitutes a placeholder for an empty name (pitfall 23) and caps the length', () => {
    const reverse: Record<string, string> = {};
    expect(sanitizeToolName('', reverse)).toBe('unnamed_tool');
    expect(sanitizeToolName('9'.repeat(100), reverse)).toHaveLength(64);
  });
});
