/** No internet here, so an image URL's media type is read from its extension (or data: prefix). */
const EXTENSIONS: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

export function guessImageTypeFromUrl(url: string): string {
  const data = /^data:([^;,]+)[;,]/.exec(url);
  if (data !== null) return data[1]!;
  const extension = /\.([A-Za-z0-9]+)(?:[?#]|$)/.exec(url);
  return (extension === null ? undefined : EXTENSIONS[extension[1]!.toLowerCase()]) ?? 'image/*';
}
