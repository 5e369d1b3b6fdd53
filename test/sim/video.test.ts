/**
 * Video generation as a long-running operation: submit, poll, cancel, failures, and the MP4 bytes.
 * Driven over raw HTTP: @google/genai 3.1 offers generateVideos for Vertex only.
 */
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { errorOf, get, GOOGLE_HEADERS, PNG_BASE64, post } from './sim-support';

let quick: Simulator;
let slow: Simulator;
beforeAll(async () => {
  quick = await startSimulator({ videoMs: 0 });
  slow = await startSimulator({ videoMs: 600_000 });
});
afterAll(async () => {
  await quick.close();
  await slow.close();
});

interface Operation {
  name: string;
  done?: boolean;
  error?: { code: number; message: string; status: string };
  response?: { generateVideoResponse: { generatedSamples?: { video: { uri: string } }[]; raiMediaFilteredReasons?: string[] } };
}

async function submit(sim: Simulator, prompt: string, parameters: Record<string, unknown> = {}): Promise<Operation> {
  const answer = await post(sim, '/v1beta/models/veo-3:predictLongRunning', { instances: [{ prompt }], parameters }, GOOGLE_HEADERS);
  expect(answer.status).toBe(200);
  return answer.json as Operation;
}

async function poll(sim: Simulator, name: string): Promise<Operation> {
  const answer = await get(sim, `/v1beta/${name}`, GOOGLE_HEADERS);
  expect(answer.status).toBe(200);
  return answer.json as Operation;
}

/** Walks the top-level ISO BMFF boxes: their sizes must tile the file exactly. */
function boxes(bytes: Buffer): { type: string; body: Buffer }[] {
  const found: { type: string; body: Buffer }[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const size = bytes.readUInt32BE(offset);
    expect(size).toBeGreaterThanOrEqual(8);
    found.push({ type: bytes.toString('latin1', offset + 4, offset + 8), body: bytes.subarray(offset + 8, offset + size) });
    offset += size;
  }
  expect(offset).toBe(bytes.length);
  return found;
}

it('submits, then reports done with a video URI that serves a valid MP4 with the key', async () => {
  const operation = await submit(quick, 'a calm sea', { durationSeconds: 6, resolution: '1080p', aspectRatio: '9:16' });
  expect(operation.name).toMatch(/^models\/veo-3\/operations\/[a-z0-9]+$/);
  const done = await poll(quick, operation.name);
  expect(done.done).toBe(true);
  const uri = done.response!.generateVideoResponse.generatedSamples![0]!.video.uri;
  expect(uri).toMatch(new RegExp(`^${quick.url}/v1beta/files/[a-z0-9]+:download\\?alt=media$`));

  expect((await fetch(uri)).status).toBe(403);
  const response = await fetch(uri, { headers: GOOGLE_HEADERS });
  expect(response.headers.get('content-type')).toBe('video/mp4');
  const bytes = Buffer.from(await response.arrayBuffer());
  const found = boxes(bytes);
  expect(found.map((box) => box.type)).toEqual(['ftyp', 'moov', 'mdat']);
  expect(found[0]!.body.toString('latin1', 0, 4)).toBe('isom');
  const mvhd = boxes(found[1]!.body)[0]!;
  expect(mvhd.type).toBe('mvhd');
  expect(mvhd.body.readUInt32BE(16) / mvhd.body.readUInt32BE(12)).toBe(6);

  const again = Buffer.from(await (await fetch(uri, { headers: GOOGLE_HEADERS })).arrayBuffer());
  expect(again.equals(bytes)).toBe(true);
});

it('reports running until the completion time, and cancels', async () => {
  const operation = await submit(slow, 'a long shot');
  const running = await poll(slow, operation.name);
  expect(running).toMatchObject({ name: operation.name, done: false, metadata: expect.any(Object) });
  const cancel = await post(slow, `/v1beta/${operation.name}:cancel`, {}, GOOGLE_HEADERS);
  expect(cancel.status).toBe(200);
  expect(await poll(slow, operation.name)).toEqual({
    name: operation.name,
    done: true,
    error: { code: 1, message: 'CANCELLED', status: 'CANCELLED' },
  });
});

it('fails a FAIL_VIDEO prompt and filters a FILTER_VIDEO prompt', async () => {
  const failed = await poll(quick, (await submit(quick, 'please FAIL_VIDEO now')).name);
  expect(failed).toMatchObject({ done: true, error: { code: 3, status: 'INVALID_ARGUMENT', message: expect.any(String) } });
  const filtered = await poll(quick, (await submit(quick, 'FILTER_VIDEO scene')).name);
  expect(filtered.done).toBe(true);
  expect(filtered.response!.generateVideoResponse.generatedSamples).toBeUndefined();
  expect(filtered.response!.generateVideoResponse.raiMediaFilteredReasons).toHaveLength(1);
});

it('accepts an image to animate', async () => {
  const answer = await post(
    quick,
    '/v1beta/models/veo-3:predictLongRunning',
    { instances: [{ prompt: 'move', image: { bytesBase64Encoded: PNG_BASE64, mimeType: 'image/png' } }] },
    GOOGLE_HEADERS,
  );
  expect(answer.status).toBe(200);
});

it.each<[string, Record<string, unknown>, RegExp]>([
  ['a duration above 8 seconds', { durationSeconds: 10 }, /durationSeconds/],
  ['an unsupported resolution', { resolution: '4k' }, /resolution/],
  ['an unsupported aspect ratio', { aspectRatio: '4:3' }, /aspectRatio/],
])('rejects %s with 400 INVALID_ARGUMENT', async (_name, parameters, message) => {
  const answer = await post(quick, '/v1beta/models/veo-3:predictLongRunning', { instances: [{ prompt: 'x' }], parameters }, GOOGLE_HEADERS);
  expect(answer.status).toBe(400);
  expect(errorOf(answer)).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: expect.stringMatching(message) });
});

it('rejects an unknown video model, an unknown operation and a missing key', async () => {
  const unknownModel = await post(
    quick,
    '/v1beta/models/gemini-2.5-flash:predictLongRunning',
    { instances: [{ prompt: 'x' }] },
    GOOGLE_HEADERS,
  );
  expect(unknownModel.status).toBe(404);
  const unknownOperation = await get(quick, '/v1beta/models/veo-3/operations/doesnotexist', GOOGLE_HEADERS);
  expect(unknownOperation.status).toBe(404);
  expect(errorOf(unknownOperation).status).toBe('NOT_FOUND');
  const noKey = await post(quick, '/v1beta/models/veo-3:predictLongRunning', { instances: [{ prompt: 'x' }] });
  expect(noKey.status).toBe(403);
});
