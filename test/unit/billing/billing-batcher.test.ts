import { MicroBatcher, type BatchItemResult } from '../../../workers/billing-batcher';

describe('MicroBatcher', () => {
  it('writes items submitted together as one batch and gives each its own outcome', async () => {
    const batches: number[][] = [];
    const batcher = new MicroBatcher<number, number>(async (items) => {
      batches.push(items);
      return items.map((item): BatchItemResult<number> => (item === 3 ? { ok: false, error: new Error('three') } : { ok: true, value: item * 10 }));
    }, { maxSize: 10, lingerMs: 5 });
    const results = await Promise.allSettled([1, 2, 3, 4].map((item) => batcher.submit(item)));
    expect(batches).toEqual([[1, 2, 3, 4]]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([10, 20, 'three', 40]);
  });

  it('starts a batch as soon as it is full, without waiting for the linger', async () => {
    const batches: number[][] = [];
    const batcher = new MicroBatcher<number, number>(async (items) => {
      batches.push(items);
      return items.map((value) => ({ ok: true, value }));
    }, { maxSize: 2, lingerMs: 60_000 });
    await Promise.all([1, 2, 3, 4].map((item) => batcher.submit(item)));
    expect(batches).toEqual([[1, 2], [3, 4]]);
  });

  it('rejects every item of a batch that throws, and idle() waits for running batches', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const batcher = new MicroBatcher<number, number>(async () => {
      await gate;
      throw new Error('database down');
    }, { maxSize: 5, lingerMs: 1 });
    const submitted = [batcher.submit(1), batcher.submit(2)].map((p) => p.catch((error: Error) => error.message));
    let idle = false;
    const waiting = batcher.idle().then(() => { idle = true; });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(idle).toBe(false);
    release();
    await waiting;
    expect(await Promise.all(submitted)).toEqual(['database down', 'database down']);
  });

  it('rejects an item the batch returned no result for', async () => {
    const batcher = new MicroBatcher<number, number>(async () => [], { maxSize: 1, lingerMs: 1 });
    await expect(batcher.submit(1)).rejects.toThrow('no result');
  });
});
