/**
 * Real, valid PNG files made from nothing but a colour: an RGB image of the asked size, one solid
 * colour with a darker band across the top, so it deflates to a few kilobytes.
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { BoundedMap } from '../bounded-map';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const CRC_TABLE = buildCrcTable();

function buildCrcTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

export function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (let index = 0; index < bytes.length; index++) crc = CRC_TABLE[(crc ^ bytes[index]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

export type Rgb = readonly [number, number, number];

/** The colour of an image, derived from the text (prompt) it illustrates. */
export function colourOf(seed: string): Rgb {
  const digest = createHash('sha256').update(seed).digest();
  return [digest[0]!, digest[1]!, digest[2]!];
}

export function encodePng(width: number, height: number, colour: Rgb): Buffer {
  const stride = width * 3 + 1;
  const raw = Buffer.alloc(stride * height);
  const band = Math.max(1, Math.floor(height / 8));
  const dark: Rgb = [colour[0] >> 1, colour[1] >> 1, colour[2] >> 1];
  for (let y = 0; y < height; y++) {
    const offset = y * stride;
    const pixel = y < band ? dark : colour;
    if (y === 0 || y === band) {
      raw[offset] = 0; // filter None: the row spelled out.
      for (let x = 0; x < width; x++) {
        raw[offset + 1 + x * 3] = pixel[0];
        raw[offset + 2 + x * 3] = pixel[1];
        raw[offset + 3 + x * 3] = pixel[2];
      }
    } else {
      raw[offset] = 2; // filter Up: identical to the row above, so all zero bytes.
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type RGB
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** Generated images are cached by size and colour: deflating a large image costs milliseconds. */
export class PngCache {
  private readonly cache = new BoundedMap<string, Buffer>(64);

  get(width: number, height: number, colour: Rgb): Buffer {
    const key = `${width}x${height}:${colour.join(',')}`;
    let png = this.cache.get(key);
    if (png === undefined) {
      png = encodePng(width, height, colour);
      this.cache.set(key, png);
    }
    return png;
  }
}
