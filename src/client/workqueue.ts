// A rate-limited work queue in the manner of client-go's: a key is queued at most once at a
// time, a key being processed is not handed to a second worker (a re-add waits until it is
// done), and failed keys come back after an exponential back-off.
import type { WorkQueueMetrics } from './workqueue-metrics.js';

export interface RateLimiter<K> {
  /** Delay before the key's next retry (counts the retry). */
  when(key: K): number;
  /** Clears the key's failure history. */
  forget(key: K): void;
  retries(key: K): number;
}

/** base * 2^failures, capped at max (client-go's default is 5 ms up to 1000 s). */
export class ExponentialBackoff<K> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();

  constructor(
    private readonly baseMs = 5,
    private readonly maxMs = 1_000_000,
  ) {}

  when(key: K): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    return Math.min(this.baseMs * 2 ** n, this.maxMs);
  }

  forget(key: K): void {
    this.failures.delete(key);
  }

  retries(key: K): number {
    return this.failures.get(key) ?? 0;
  }
}

export class WorkQueue<K = string> {
  private readonly queue: K[] = [];
  /** Keys waiting to be processed (queued, or re-added while processing). */
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly waiters: ((key: K | undefined) => void)[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private shuttingDown = false;
  private readonly metrics: WorkQueueMetrics | undefined;

  /** `metrics` hears of adds, retries and the depth, as client-go's named queues report them. */
  constructor(
    private readonly limiter: RateLimiter<K> = new ExponentialBackoff<K>(),
    opts: { metrics?: WorkQueueMetrics } = {},
  ) {
    this.metrics = opts.metrics;
  }

  add(key: K): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    this.metrics?.add();
    this.reportDepth();
    if (this.processing.has(key)) return;
    this.enqueue(key);
  }

  /** Depth counts keys waiting, including a re-add held back while its key is processed (as client-go's does). */
  private reportDepth(): void {
    this.metrics?.depth(this.dirty.size);
  }

  private enqueue(key: K): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      this.dirty.delete(key);
      this.processing.add(key);
      this.reportDepth();
      waiter(key);
    } else this.queue.push(key);
  }

  /** Adds the key after `delayMs` (a retry in the metrics, as client-go counts every delayed add). */
  addAfter(key: K, delayMs: number): void {
    if (this.shuttingDown) return;
    this.metrics?.retry();
    if (delayMs <= 0) return this.add(key);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.add(key);
    }, delayMs);
    this.timers.add(timer);
  }

  /** Re-adds a failed key after its back-off. */
  addRateLimited(key: K): void {
    this.addAfter(key, this.limiter.when(key));
  }

  /** The key succeeded: reset its back-off. */
  forget(key: K): void {
    this.limiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.limiter.retries(key);
  }

  /** The next key, or undefined once the queue is shut down. Call `done(key)` afterwards. */
  get(): Promise<K | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      this.reportDepth();
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(key: K): void {
    this.processing.delete(key);
    if (this.dirty.has(key) && !this.shuttingDown) this.enqueue(key);
  }

  len(): number {
    return this.queue.length;
  }

  /** True while a key waits or is being processed (delayed adds and back-offs not counted). */
  busy(): boolean {
    return this.dirty.size > 0 || this.processing.size > 0;
  }

  /** Stops handing out keys; pending `get` calls resolve undefined; delayed adds are dropped. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.queue.length = 0;
    this.dirty.clear();
    this.reportDepth();
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }
}

/**
 * Runs `workers` loops that take keys and call `sync`. A key whose sync throws is retried
 * after its back-off; one that succeeds has its back-off reset. Resolves when the queue
 * shuts down and every loop has finished its current key.
 */
export async function runWorkers<K>(
  queue: WorkQueue<K>,
  sync: (key: K) => Promise<void>,
  opts: { workers?: number; onError?: (key: K, err: unknown) => void } = {},
): Promise<void> {
  const loop = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        await sync(key);
        queue.forget(key);
      } catch (err) {
        opts.onError?.(key, err);
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  };
  await Promise.all(Array.from({ length: opts.workers ?? 1 }, loop));
}
