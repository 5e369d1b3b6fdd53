import type { ServerResponse } from 'node:http';

/** Writes and waits for `drain` when the socket buffer is full; resolves false if the client left. */
export async function writeWithBackpressure(res: ServerResponse, data: string): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return false;
  if (res.write(data)) return true;
  return new Promise<boolean>((resolve) => {
    const done = (ok: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}
