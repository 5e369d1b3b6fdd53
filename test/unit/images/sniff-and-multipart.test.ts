import { encodeMultipart } from '../../../src/images/encode-multipart';
import { parseImageEditForm } from '../../../src/images/parse-image-edit-form';
import { extensionForMediaType, sniffImageType } from '../../../src/images/sniff-image-type';
import { GatewayError } from '../../../src/errors/gateway-error';
import { pngBytes } from './fake-upstream';

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
const WEBP = Buffer.concat([Buffer.from('RIFF', 'latin1'), Buffer.alloc(4), Buffer.from('WEBPVP8 ', 'latin1')]);

describe('sniffImageType', () => {
  it.each([
    [pngBytes(), 'image/png'],
    [JPEG, 'image/jpeg'],
    [WEBP, 'image/webp'],
    [Buffer.from('GIF89a....', 'latin1'), 'image/gif'],
    [Buffer.from('hello world', 'latin1'), undefined],
    [Buffer.alloc(0), undefined],
  ])('%#', (bytes, type) => {
    expect(sniffImageType(bytes)).toBe(type);
  });

  it('maps media types to extensions', () => {
    expect(extensionForMediaType('image/png')).toBe('png');
    expect(extensionForMediaType('video/mp4')).toBe('mp4');
    expect(extensionForMediaType('application/x-unknown')).toBe('bin');
  });
});

async function rejectionOf(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('multipart encoding and the edit form', () => {
  it('round-trips fields and files through the platform parser', async () => {
    const { body, contentType } = encodeMultipart([
      { name: 'model', value: 'gpt-image-1' },
      { name: 'prompt', value: '把天空画成紫色 "quoted"\nline two' },
      { name: 'image[]', filename: 'a.png', contentType: 'image/png', bytes: pngBytes('a') },
      { name: 'image[]', filename: 'b.jpg', contentType: 'image/jpeg', bytes: JPEG },
      { name: 'mask', filename: 'm.png', contentType: 'image/png', bytes: pngBytes('m') },
    ]);
    const form = await parseImageEditForm(body, contentType);
    expect(form.fields).toEqual({ model: 'gpt-image-1', prompt: '把天空画成紫色 "quoted"\nline two' });
    expect(form.images.map((image) => [image.filename, image.mediaType, image.bytes.toString('latin1')])).toEqual([
      ['a.png', 'image/png', pngBytes('a').toString('latin1')],
      ['b.jpg', 'image/jpeg', JPEG.toString('latin1')],
    ]);
    expect(form.mask?.bytes.equals(pngBytes('m'))).toBe(true);
  });

  it('accepts a single `image` field', async () => {
    const { body, contentType } = encodeMultipart([
      { name: 'image', filename: 'one.png', contentType: 'image/png', bytes: pngBytes() },
      { name: 'prompt', value: 'x' },
    ]);
    const form = await parseImageEditForm(body, contentType);
    expect(form.images).toHaveLength(1);
    expect(form.mask).toBeUndefined();
  });

  it('types files by their bytes, not by the declared type', async () => {
    const { body, contentType } = encodeMultipart([{ name: 'image', filename: 'lie.jpg', contentType: 'image/jpeg', bytes: pngBytes() }]);
    expect((await parseImageEditForm(body, contentType)).images[0].mediaType).toBe('image/png');
  });

  it.each([
    ['no image', [{ name: 'prompt', value: 'x' }], 'image'],
    ['a text image field', [{ name: 'image', value: 'http://example.com/a.png' }], 'image'],
    [
      'a file that is not an image',
      [{ name: 'image', filename: 'a.txt', contentType: 'text/plain', bytes: Buffer.from('hello') }],
      'image',
    ],
    [
      'a bad mask',
      [
        { name: 'image', filename: 'a.png', contentType: 'image/png', bytes: pngBytes() },
        { name: 'mask', filename: 'm.bin', contentType: 'image/png', bytes: Buffer.from('nope') },
      ],
      'mask',
    ],
    [
      'an unknown file field',
      [
        { name: 'image', filename: 'a.png', contentType: 'image/png', bytes: pngBytes() },
        { name: 'other', filename: 'o.png', contentType: 'image/png', bytes: pngBytes() },
      ],
      'other',
    ],
  ] as const)('rejects %s naming the field', async (_label, fields, param) => {
    const { body, contentType } = encodeMultipart(fields);
    const error = await rejectionOf(parseImageEditForm(body, contentType));
    expect(error.kind).toBe('invalid_request');
    expect(error.param).toBe(param);
  });

  it('rejects a body that is not multipart', async () => {
    const error = await rejectionOf(parseImageEditForm(Buffer.from('{"a":1}'), 'multipart/form-data; boundary=zzz'));
    expect(error.kind).toBe('invalid_request');
  });
});
