// What most controllers run on: a rate-limited work queue of object keys drained by workers,
// wake-ups of a key on the controller's clock (at most one pending per key), the informer
// handlers to remove on stop, and `idle()` true when nothing is queued or being synced.
import type { Clock } from '../apimachinery/clock.js';
import type { Informer } from '../client/informer.js';
import { ExponentialBackoff, runWorkers, WorkQueue } from '../client/workqueue.js';
import { workQueueMetrics } from '../client/workqueue-metrics.js';
import type { RunningController } from './types.js';

export interface KeyedLoopOptions {
  /** The first back-off of a failing key (ms, doubling per failure); 5 ms as client-go's default. */
  baseRetryDelayMs?: number;
  /** The longest back-off of a failing key (ms); client-go's default controller rate limiter caps at 1000 s. */
  maxRetryDelayMs?: number;
}

export class KeyedLoop implements RunningController {
  readonly queue: WorkQueue<string>;
  private readonly wakeups = new Map<string, () => void>();
  private readonly cleanups: (() => void)[] = [];
  private inFlight = 0;
  private workers: Promise<void> | undefined;
  private stopping: () => void = () => {};
  private readonly stopped = new Promise<void>((resolve) => (this.stopping = resolve));

  /** `queueName` names the queue in the metrics as kube-controller-manager does. */
  constructor(
    protected readonly clock: Clock,
    queueName: string,
    opts: KeyedLoopOptions = {},
  ) {
    this.queue = new WorkQueue<string>(new ExponentialBackoff<string>(opts.baseRetryDelayMs ?? 5, opts.maxRetryDelayMs ?? 1_000_000), { metrics: workQueueMetrics(queueName) });
  }

  /** Runs `sync` for every queued key on `workers` loops; a key whose sync throws is retried after its back-off. */
  run(sync: (key: string) => Promise<void>, workers: number, onError: (err: unknown) => void): void {
    this.workers = runWorkers(
      this.queue,
      async (key) => {
        this.inFlight++;
        try {
          await sync(key);
        } finally {
          this.inFlight--;
        }
      },
      { workers, onError: (_key, err) => onError(err) },
    );
  }

  add(key: string): void {
    this.queue.add(key);
  }

  /** Queues `key` once `ms` of the clock have passed, replacing its pending wake-up. */
  wakeAfter(key: string, ms: number): void {
    this.cancelWake(key);
    const cancel = this.clock.schedule(Math.max(0, ms), () => {
      this.wakeups.delete(key);
      this.queue.add(key);
    });
    this.wakeups.set(key, cancel);
  }

  cancelWake(key: string): void {
    this.wakeups.get(key)?.();
    this.wakeups.delete(key);
  }

  /** Runs `fn` on stop (an informer handler's removal). */
  onStop(fn: () => void): void {
    this.cleanups.push(fn);
  }

  /**
   * Resolves true once every informer has its first list, false when the loop stops first
   * (a sync that waits never holds up `stop`).
   */
  async synced(...informers: Informer[]): Promise<boolean> {
    if (informers.every((i) => i.hasSynced())) return true;
    await Promise.race([Promise.all(informers.map((i) => i.waitForSync())), this.stopped]);
    return !this.queue.isShuttingDown() && informers.every((i) => i.hasSynced());
  }

  idle(): boolean {
    // busy(), not len(): a key handed straight to a waiting worker is in no queue, yet not synced.
    return !this.queue.busy() && this.inFlight === 0;
  }

  async stop(): Promise<void> {
    for (const fn of this.cleanups.splice(0)) fn();
    for (const cancel of this.wakeups.values()) cancel();
    this.wakeups.clear();
    this.queue.shutDown();
    this.stopping();
    await this.workers;
  }
}
