import { encodeMultipart } from '../../../src/images/encode-multipart';
import { imageEditContent } from '../../../src/images/image-edit-content';
import { requestFingerprint } from '../../../src/idempotency/request-fingerprint';

// The smallest PNG header the edit form's type sniffing accepts.
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(32, 1)]);

function editForm(prompt: string, image = PNG) {
  return encodeMultipart([
    { name: 'model', value: 'gpt-image-1' },
    { name: 'prompt', value: prompt },
    { name: 'image', filename: 'a.png', contentType: 'image/png', bytes: image },
  ]);
}

describe('requestFingerprint', () => {
  it('ignores JSON key order and whitespace but not values or the route', async () => {
    const a = await requestFingerprint('/v1/tasks/submit', { model: 'veo-3', prompt: 'x', extra: { b: 1, a: 2 } }, 'application/json');
    expect(await requestFingerprint('/v1/tasks/submit', { extra: { a: 2, b: 1 }, prompt: 'x', model: 'veo-3' }, 'application/json')).toBe(
      a,
    );
    expect(
      await requestFingerprint('/v1/tasks/submit', { model: 'veo-3', prompt: 'y', extra: { b: 1, a: 2 } }, 'application/json'),
    ).not.toBe(a);
    expect(
      await requestFingerprint('/v1/images/generations', { model: 'veo-3', prompt: 'x', extra: { b: 1, a: 2 } }, 'application/json'),
    ).not.toBe(a);
  });

  it('reads a multipart edit by its fields and files, not by its random boundary', async () => {
    const first = editForm('make it blue');
    const retry = editForm('make it blue');
    expect(first.contentType).not.toBe(retry.contentType);
    const fingerprint = await requestFingerprint('/v1/images/edits', first.body, first.contentType, imageEditContent);
    expect(await requestFingerprint('/v1/images/edits', retry.body, retry.contentType, imageEditContent)).toBe(fingerprint);
    const other = editForm('make it red');
    expect(await requestFingerprint('/v1/images/edits', other.body, other.contentType, imageEditContent)).not.toBe(fingerprint);
    const otherImage = editForm('make it blue', Buffer.concat([PNG, Buffer.from([7])]));
    expect(await requestFingerprint('/v1/images/edits', otherImage.body, otherImage.contentType, imageEditContent)).not.toBe(fingerprint);
  });
});
