/**
 * Gathers items submitted one by one (one per BullMQ job) into batches written together: a batch
 * runs when it reaches `maxSize` or `lingerMs` after its first item, and each submitter gets its
 * own item's outcome. BullMQ (open source) hands jobs out one at a time; this is how a worker with
 * concurrency N settles up to N jobs in one PostgreSQL transaction.
 */
export type BatchItemResult<R> = { ok: true; value: R } | { ok: false; error: unknown };

interface Waiting<T, R> {
  item: T;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

export interface MicroBatcherOptions {
  maxSize: number;
  lingerMs: number;
}

export class MicroBatcher<T, R> {
  private waiting: Array<Waiting<T, R>> = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly runBatch: (items: T[]) => Promise<Array<BatchItemResult<R>>>,
    private readonly options: MicroBatcherOptions,
  ) {
    if (!Number.isInteger(options.maxSize) || options.maxSize < 1) throw new Error('maxSize must be a positive integer');
  }

  /** Items waiting for their batch to start. */
  get queued(): number {
    return this.waiting.length;
  }

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.waiting.length >= this.options.maxSize) this.flush();
      else if (this.timer === undefined) {
        this.timer = setTimeout(() => this.flush(), this.options.lingerMs);
      }
    });
  }

  /** Starts a batch with what is waiting now. */
  flush(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.options.maxSize);
      const run = this.run(batch).finally(() => this.running.delete(run));
      this.running.add(run);
    }
  }

  /** Resolves once nothing is waiting or running. */
  async idle(): Promise<void> {
    this.flush();
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private async run(batch: Array<Waiting<T, R>>): Promise<void> {
    let results: Array<BatchItemResult<R>>;
    try {
      results = await this.runBatch(batch.map((waiting) => waiting.item));
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
      return;
    }
    batch.forEach((waiting, index) => {
      const result = results[index];
      if (result === undefined) waiting.reject(new Error('batch returned no result for an item'));
      else if (result.ok) waiting.resolve(result.value);
      else waiting.reject(result.error);
    });
  }
}
