/** Image sizes of interface 4.5: `<w>x<h>`, each side from 1024 to 4096 pixels. */
export const MIN_IMAGE_SIDE = 1024;
export const MAX_IMAGE_SIDE = 4096;
export const DEFAULT_IMAGE_SIZE = '1024x1024';

export interface ImageSize {
  width: number;
  height: number;
}

/** The parsed size, or a message saying what is wrong with it. */
export function parseImageSize(size: string): ImageSize | string {
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(size);
  if (!match) return `size must have the form <width>x<height>, e.g. ${DEFAULT_IMAGE_SIZE}`;
  const width = Number(match[1]);
  const height = Number(match[2]);
  if (width < MIN_IMAGE_SIDE || height < MIN_IMAGE_SIDE || width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) {
    return `size must be from ${MIN_IMAGE_SIDE}x${MIN_IMAGE_SIDE} up to ${MAX_IMAGE_SIDE}x${MAX_IMAGE_SIDE}; got ${size}`;
  }
  return { width, height };
}

const ASPECT_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'] as const;

/**
 * Generate-Content image models take an aspect ratio, not pixels: the listed ratio closest to the
 * requested size (compared on a log scale so 2:1 and 1:2 are equally far from 1:1).
 */
export function closestAspectRatio(size: ImageSize): { ratio: string; exact: boolean } {
  const wanted = Math.log(size.width / size.height);
  let best: string = ASPECT_RATIOS[0];
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const ratio of ASPECT_RATIOS) {
    const [w, h] = ratio.split(':').map(Number);
    const distance = Math.abs(Math.log(w / h) - wanted);
    if (distance < bestDistance) {
      best = ratio;
      bestDistance = distance;
    }
  }
  return { ratio: best, exact: bestDistance < 1e-9 };
}
