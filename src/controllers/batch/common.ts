// What the batch controllers share: the resources, Job finish state, controller references,
// and a keyed work loop whose delayed wake-ups run on the controllers' Clock.
import { isApiError } from '../../apimachinery/errors.js';
import type { Clock } from '../../apimachinery/clock.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { ExponentialBackoff, runWorkers, WorkQueue } from '../../client/workqueue.js';
import { workQueueMetrics } from '../../client/workqueue-metrics.js';
import type { RunningController } from '../types.js';

export const JOBS: GroupVersionResource = { group: 'batch', version: 'v1', resource: 'jobs' };
export const CRONJOBS: GroupVersionResource = { group: 'batch', version: 'v1', resource: 'cronjobs' };
export const PODS: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastProbeTime?: string;
  lastTransitionTime?: string;
}

export function conditionsOf(o: KubeObject): Condition[] {
  const status = o.status as { conditions?: unknown } | undefined;
  return Array.isArray(status?.conditions) ? (status.conditions as Condition[]) : [];
}

/** `Complete` or `Failed` when the Job has finished, with the time it did. */
export function jobFinished(job: KubeObject): { type: 'Complete' | 'Failed'; at?: string } | undefined {
  const c = conditionsOf(job).find((x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True');
  return c ? { type: c.type as 'Complete' | 'Failed', at: c.lastTransitionTime } : undefined;
}

/** The owner reference of `owner` that marks it as the controller. */
export function controllerRef(owner: KubeObject, apiVersion: string, kind: string): NonNullable<KubeObject['metadata']>['ownerReferences'] {
  return [{ apiVersion, kind, name: owner.metadata?.name ?? '', uid: owner.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }];
}

/** The uid of `obj`'s controller when it is of `kind`. */
export function controllerUid(obj: KubeObject, kind: string): string | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true && r.kind === kind)?.uid;
}

export function isNotFound(err: unknown): boolean {
  return isApiError(err) && err.code === 404;
}

export function isAlreadyExists(err: unknown): boolean {
  return isApiError(err) && err.code === 409 && err.status.reason === 'AlreadyExists';
}

/**
 * A work queue of `namespace/name` keys served by `workers` loops, with wake-ups at a later
 * time of `clock` (one pending per key: a new one replaces the old).
 */
export class KeyedLoop implements RunningController {
  readonly queue: WorkQueue<string>;
  private readonly wakeups = new Map<string, () => void>();
  private inFlight = 0;
  private workers: Promise<void> | undefined;
  private readonly cleanups: (() => void)[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly sync: (key: string) => Promise<void>,
    private readonly onError: (err: unknown) => void,
    /** The work queue's name in the metrics, as kube-controller-manager names it. */
    queueName: string,
  ) {
    this.queue = new WorkQueue<string>(new ExponentialBackoff<string>(5, 60_000), { metrics: workQueueMetrics(queueName) });
  }

  /** Runs `fn` on stop (informer handler removal). */
  onStop(fn: () => void): void {
    this.cleanups.push(fn);
  }

  start(workers: number): void {
    this.workers = runWorkers(
      this.queue,
      async (key) => {
        this.inFlight++;
        try {
          await this.sync(key);
        } finally {
          this.inFlight--;
        }
      },
      { workers, onError: (_key, err) => this.onError(err) },
    );
  }

  add(key: string): void {
    this.queue.add(key);
  }

  /** Queues `key` once `ms` of the clock have passed. */
  wakeAfter(key: string, ms: number): void {
    this.wakeups.get(key)?.();
    const cancel = this.clock.schedule(Math.max(0, ms), () => {
      this.wakeups.delete(key);
      this.queue.add(key);
    });
    this.wakeups.set(key, cancel);
  }

  idle(): boolean {
    return this.queue.len() === 0 && this.inFlight === 0;
  }

  async stop(): Promise<void> {
    for (const fn of this.cleanups.splice(0)) fn();
    for (const cancel of this.wakeups.values()) cancel();
    this.wakeups.clear();
    this.queue.shutDown();
    await this.workers;
  }
}
