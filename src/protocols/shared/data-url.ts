/** `data:<mime>;base64,<b64>` ⇄ base64 media source. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]+)(?:;[^;,]*)*;base64,(.*)$/s.exec(url);
  if (!match) return undefined;
  return { mediaType: match[1], data: match[2] };
}

export function toDataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}
