// The running part the token controllers share: a rate-limited work queue drained by workers,
// the informer handlers to remove on stop, and the clock schedules to cancel, with `idle()`
// true when nothing is queued or being synced.
import type { Informer } from '../../client/informer.js';
import { ExponentialBackoff, runWorkers, WorkQueue } from '../../client/workqueue.js';
import { workQueueMetrics } from '../../client/workqueue-metrics.js';
import type { RunningController } from '../types.js';

export class QueueController implements RunningController {
  readonly queue: WorkQueue<string>;
  private readonly removers: (() => void)[] = [];
  private readonly schedules = new Map<string, () => void>();
  private inFlight = 0;
  private workers: Promise<void> | undefined;
  private stopping: () => void = () => {};
  private readonly stopped = new Promise<void>((resolve) => (this.stopping = resolve));

  /** `queueName` names the queue in the metrics as kube-controller-manager does. */
  constructor(queueName: string) {
    this.queue = new WorkQueue<string>(new ExponentialBackoff<string>(5, 1_000_000), { metrics: workQueueMetrics(queueName) });
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

  /** Keeps an informer handler's remover for `stop`. */
  onStop(remove: () => void): void {
    this.removers.push(remove);
  }

  /** Replaces the key's pending wake-up by one `cancel` undoes (at most one per key). */
  setSchedule(key: string, cancel: (() => void) | undefined): void {
    this.schedules.get(key)?.();
    if (cancel) this.schedules.set(key, cancel);
    else this.schedules.delete(key);
  }

  /**
   * Resolves true once every informer has its first list, false when the controller stops
   * first (a sync that waits never holds up `stop`).
   */
  async synced(...informers: Informer[]): Promise<boolean> {
    if (informers.every((i) => i.hasSynced())) return true;
    await Promise.race([Promise.all(informers.map((i) => i.waitForSync())), this.stopped]);
    return !this.queue.isShuttingDown() && informers.every((i) => i.hasSynced());
  }

  idle(): boolean {
    return this.queue.len() === 0 && this.inFlight === 0;
  }

  async stop(): Promise<void> {
    for (const remove of this.removers.splice(0)) remove();
    for (const cancel of this.schedules.values()) cancel();
    this.schedules.clear();
    this.queue.shutDown();
    this.stopping();
    await this.workers;
  }
}
