/**
 * Appends a part to a content's parts. A signature-only part (`{text: "", thoughtSignature}`, how a
 * signature on a text answer travels through the IR) goes back onto the plain text part right
 * before it, which is where the provider put it in a whole answer.
 */
export function appendGenerateContentPart(parts: Array<Record<string, unknown>>, part: Record<string, unknown>): void {
  const previous = parts[parts.length - 1];
  const signatureOnly =
    part.text === '' && part.thought === undefined && typeof part.thoughtSignature === 'string' && Object.keys(part).length === 2;
  if (
    signatureOnly &&
    previous !== undefined &&
    typeof previous.text === 'string' &&
    previous.thought === undefined &&
    previous.thoughtSignature === undefined
  ) {
    previous.thoughtSignature = part.thoughtSignature;
    return;
  }
  parts.push(part);
}
