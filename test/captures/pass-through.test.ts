/**
 * Issue 9, native pass-through (client protocol = upstream protocol): the relay forwards the
 * upstream's bytes unchanged, so a client receives exactly the recorded answer (replayed per the
 * captures README), however the upstream's bytes were cut; and what is billed is exactly the
 * provider's usage, both as the relay settles it (its usage event) and as the codec's
 * pass-through meter (`codec.createPassThroughMeter(stream)`) reads the same bytes. Issue 13: a
 * stream passes through with no stream decoder (the meter alone reads it), and the meter counts an
 * abandoned stream's output exactly as the decoder's events do.
 */
import { PROTOCOLS } from '../../src/ir/protocol';
import { totalInputTokens } from '../../src/ir/usage';
import { UsageTally } from '../../src/ir/usage-tally';
import { CODECS } from '../../src/relay/codec-registry';
import { observeUsage } from '../../src/relay/observe-usage';
import { rawTotals } from '../support/capture-facts';
import { bodyCaptures, capturesPresent, replayAsSse, streamCaptures } from '../support/capture-files';
import { startPassThroughRelay, type PassThroughRelay } from '../support/capture-relay';
import { decodeContext, seededRandom, splitBytesRandomly } from '../support/sdk-responses';

const ERROR_CAPTURES = [
  'responses/openai-error.1.chunks.txt',
  'responses/openai-error.1.json',
  'generate-content/google-429-retry-info.json',
];

/** UTF-8 bytes cut at seeded random offsets (inside multi-byte characters too), as sockets deliver them. */
function bytePieces(text: string, seed: number): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  const random = seededRandom(seed);
  const pieces: Buffer[] = [];
  for (let offset = 0; offset < bytes.length;) {
    const size = 1 + Math.floor(random() * 97);
    pieces.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  return pieces;
}

/** A Chat chunk that carries only usage (`choices: []`): what the relay drops when the client did not ask for it. */
function isUsageOnlyChunk(line: string): boolean {
  const chunk = JSON.parse(line) as { choices?: unknown[]; usage?: unknown };
  return Array.isArray(chunk.choices) && chunk.choices.length === 0 && chunk.usage !== undefined && chunk.usage !== null;
}

if (!capturesPresent('capture pass-through suite')) {
  describe.skip('capture pass-through (../shared/captures absent)', () => {
    it('needs the captures', () => undefined);
  });
} else {
  const streams = PROTOCOLS.flatMap((protocol) => streamCaptures(protocol)).filter(
    (capture) => !ERROR_CAPTURES.includes(capture.label.replace(/#\d+$/, '')),
  );
  const bodies = PROTOCOLS.flatMap((protocol) => bodyCaptures(protocol)).filter((capture) => !ERROR_CAPTURES.includes(capture.label));

  describe('native pass-through of the captures', () => {
    let relay: PassThroughRelay;
    beforeAll(async () => {
      relay = await startPassThroughRelay();
    });
    afterAll(async () => {
      await relay.close();
    });

    describe.each(streams.map((capture) => [capture.label, capture] as const))('stream %s', (_label, capture) => {
      const totals = rawTotals(
        capture.protocol,
        capture.lines.map((line) => JSON.parse(line) as unknown),
      );

      it("reaches the client byte for byte and is billed exactly the provider's usage", async () => {
        const result = await relay.run({
          protocol: capture.protocol,
          stream: true,
          upstreamPieces: bytePieces(capture.sse, capture.lines.length),
        });
        expect(result.status).toBe(200);
        expect(result.contentType).toMatch(/^text\/event-stream/);
        expect(result.body).toBe(capture.sse);
        expect(result.usageEvents).toHaveLength(1);
        expect(result.usageEvents[0]).toMatchObject({
          promptTokens: totals.input,
          completionTokens: totals.output,
          status: 'ok',
          stream: true,
        });
      });

      it("is read exactly by the codec's pass-through meter, in pieces cut anywhere", () => {
        const meter = CODECS[capture.protocol].createPassThroughMeter(true);
        for (const piece of splitBytesRandomly(capture.sse, seededRandom(capture.label.length), 31)) meter.push(piece);
        const reading = meter.end();
        expect(reading.error).toBe(false);
        expect({ input: totalInputTokens(reading.usage), output: reading.usage.outputTokens }).toEqual(totals);
        // The same normalized record (cache and reasoning split included) as the stream decoder's.
        const decoder = CODECS[capture.protocol].upstream.createStreamDecoder(decodeContext());
        const events = [...decoder.push(capture.sse), ...decoder.end()];
        const usage = events.filter((event) => event.type === 'usage').at(-1);
        const finish = events.filter((event) => event.type === 'finish').at(-1);
        expect(reading.usage).toEqual(usage?.type === 'usage' ? usage.usage : undefined);
        expect(reading.finish).toEqual(finish?.type === 'finish' ? finish.finish : undefined);
      });

      it('is relayed with no stream decoder at all: the light meter alone reads it (issue 13)', async () => {
        const decoders = jest.spyOn(CODECS[capture.protocol].upstream, 'createStreamDecoder');
        try {
          const result = await relay.run({ protocol: capture.protocol, stream: true, upstreamPieces: bytePieces(capture.sse, 7) });
          expect(result.status).toBe(200);
          expect(result.usageEvents).toHaveLength(1);
          expect(decoders).not.toHaveBeenCalled();
        } finally {
          decoders.mockRestore();
        }
      });

      it("counts an abandoned stream's output as the stream decoder does (billing of a client that left, issue 13)", () => {
        // Cut after the first half of the frames: what a client that left then was sent.
        const half = replayAsSse(capture.protocol, capture.lines.slice(0, Math.ceil(capture.lines.length / 2)));
        const meter = CODECS[capture.protocol].createPassThroughMeter(true);
        for (const piece of splitBytesRandomly(half, seededRandom(capture.lines.length), 29)) meter.push(piece);
        const tally = new UsageTally();
        const decoder = CODECS[capture.protocol].upstream.createStreamDecoder(decodeContext());
        for (const event of decoder.push(half)) observeUsage(tally, event);
        const metered = meter.untilAbort(123);
        const decoded = tally.untilAbort(123);
        if (capture.protocol === 'generate-content') {
          // Generate-Content streams a call's arguments in pieces (partialArgs) that the decoder
          // reassembles into one JSON; the meter counts the pieces as they pass: a few tokens apart.
          expect(Math.abs(metered.outputTokens - decoded.outputTokens)).toBeLessThanOrEqual(5);
          expect({ ...metered, outputTokens: 0 }).toEqual({ ...decoded, outputTokens: 0 });
        } else {
          expect(metered).toEqual(decoded);
        }
      });

      if (capture.protocol === 'chat') {
        it('without include_usage, reaches the client minus the usage-only chunk and is still billed exactly', async () => {
          const result = await relay.run({
            protocol: 'chat',
            stream: true,
            includeUsage: false,
            upstreamPieces: bytePieces(capture.sse, 5),
          });
          expect(result.body).toBe(
            replayAsSse(
              'chat',
              capture.lines.filter((line) => !isUsageOnlyChunk(line)),
            ),
          );
          expect(result.usageEvents[0]).toMatchObject({ promptTokens: totals.input, completionTokens: totals.output });
        });
      }
    });

    describe.each(bodies.map((capture) => [capture.label, capture] as const))('body %s', (_label, capture) => {
      const totals = rawTotals(capture.protocol, [capture.body]);

      it("reaches the client byte for byte and is billed exactly the provider's usage", async () => {
        const result = await relay.run({ protocol: capture.protocol, stream: false, upstreamPieces: bytePieces(capture.text, 3) });
        expect(result.status).toBe(200);
        expect(result.contentType).toMatch(/^application\/json/);
        expect(result.body).toBe(capture.text);
        expect(result.usageEvents).toHaveLength(1);
        expect(result.usageEvents[0]).toMatchObject({
          promptTokens: totals.input,
          completionTokens: totals.output,
          status: 'ok',
          stream: false,
        });
      });

      it("is read exactly by the codec's pass-through meter", () => {
        const meter = CODECS[capture.protocol].createPassThroughMeter(false);
        for (const piece of splitBytesRandomly(capture.text, seededRandom(3), 64)) meter.push(piece);
        const reading = meter.end();
        const decoded = CODECS[capture.protocol].upstream.decodeResponse(capture.body, decodeContext());
        expect(reading).toEqual({ usage: decoded.usage, finish: decoded.finish, error: false });
        expect({ input: totalInputTokens(reading.usage), output: reading.usage.outputTokens }).toEqual(totals);
      });
    });
  });
}
