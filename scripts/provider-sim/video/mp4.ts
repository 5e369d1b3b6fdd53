/**
 * A small, valid ISO base media (MP4) file: `ftyp`, a `moov` whose `mvhd` states the duration,
 * and an `mdat` of deterministic bytes derived from the prompt. It has no decodable track: enough
 * for anything that stores, measures or type-checks a video, not for a player.
 */
import { createHash } from 'node:crypto';

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(body.length + 8, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

function movieHeader(durationSeconds: number): Buffer {
  const mvhd = Buffer.alloc(100);
  // version 0, flags 0, creation and modification time 0
  mvhd.writeUInt32BE(1000, 12); // timescale: milliseconds
  mvhd.writeUInt32BE(durationSeconds * 1000, 16); // duration
  mvhd.writeUInt32BE(0x00010000, 20); // rate 1.0
  mvhd.writeUInt16BE(0x0100, 24); // volume 1.0
  const matrix = [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000];
  matrix.forEach((value, index) => mvhd.writeUInt32BE(value, 36 + index * 4));
  mvhd.writeUInt32BE(2, 96); // next track id
  return box('mvhd', mvhd);
}

export function buildMp4(seed: string, durationSeconds: number): Buffer {
  const brands = Buffer.concat([Buffer.from('isom', 'latin1'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2avc1mp41', 'latin1')]);
  const data: Buffer[] = [];
  let block = createHash('sha256').update(seed).digest();
  for (let index = 0; index < durationSeconds * 32; index++) {
    data.push(block);
    block = createHash('sha256').update(block).digest();
  }
  return Buffer.concat([box('ftyp', brands), box('moov', movieHeader(durationSeconds)), box('mdat', ...data)]);
}
