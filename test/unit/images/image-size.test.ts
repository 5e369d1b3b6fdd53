import { closestAspectRatio, parseImageSize } from '../../../src/images/image-size';

describe('parseImageSize', () => {
  it.each([
    ['1024x1024', { width: 1024, height: 1024 }],
    ['4096x4096', { width: 4096, height: 4096 }],
    ['1536x1024', { width: 1536, height: 1024 }],
    ['1024x4096', { width: 1024, height: 4096 }],
  ])('accepts %s', (size, expected) => {
    expect(parseImageSize(size)).toEqual(expected);
  });

  it.each(['512x512', '1023x1024', '4097x1024', '1024x8192', '1024', 'auto', '1024X1024', ' 1024x1024', '1024x1024px', '-1024x1024'])(
    'rejects %s with a message',
    (size) => {
      const result = parseImageSize(size);
      expect(typeof result).toBe('string');
    },
  );

  it('names the accepted range in the message', () => {
    expect(parseImageSize('512x512')).toContain('1024x1024 up to 4096x4096');
  });
});

describe('closestAspectRatio', () => {
  it.each([
    [{ width: 1024, height: 1024 }, '1:1', true],
    [{ width: 2048, height: 2048 }, '1:1', true],
    [{ width: 1536, height: 1024 }, '3:2', true],
    [{ width: 1024, height: 1536 }, '2:3', true],
    [{ width: 1792, height: 1024 }, '16:9', false],
    [{ width: 4096, height: 1024 }, '21:9', false],
  ])('%o → %s', (size, ratio, exact) => {
    expect(closestAspectRatio(size)).toEqual({ ratio, exact });
  });
});
