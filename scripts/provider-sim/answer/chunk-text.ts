/** How the simulator splits text into stream chunks: three words per chunk, or fixed slices. */
const WORDS_PER_CHUNK = 3;
const ARGUMENT_SLICE = 16;

export function chunkText(text: string, sliceSize: number | null): string[] {
  if (text === '') return [];
  if (sliceSize !== null && sliceSize > 0) return slices(text, sliceSize);
  const words = text.match(/\s*\S+/g) ?? [text];
  const chunks: string[] = [];
  for (let index = 0; index < words.length; index += WORDS_PER_CHUNK) chunks.push(words.slice(index, index + WORDS_PER_CHUNK).join(''));
  const covered = chunks.join('').length;
  // Trailing whitespace is not matched by the word pattern: keep it on the last chunk.
  if (covered < text.length) chunks[chunks.length - 1] += text.slice(covered);
  return chunks;
}

/** Tool-call arguments streamed in slices of 16 characters, like providers' partial JSON. */
export function chunkArguments(json: string): string[] {
  return slices(json, ARGUMENT_SLICE);
}

function slices(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let index = 0; index < text.length; index += size) pieces.push(text.slice(index, index + size));
  return pieces;
}
