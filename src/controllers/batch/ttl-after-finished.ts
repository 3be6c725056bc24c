// The TTL-after-finished controller (kube-controller-manager's `ttl-after-finished`): a Job
// that finished (Complete or Failed) and sets `ttlSecondsAfterFinished` is deleted that many
// seconds after the finish condition's transition time, with its dependents (Foreground, as
// Kubernetes does, guarded by the Job's uid so a re-created Job of the same name is safe).
import type { KubeObject } from '../../apimachinery/types.js';
import type { Informer } from '../../client/informer.js';
import { keyOf, splitKey } from '../../client/informer.js';
import type { ApiClient } from '../../client/types.js';
import type { ControllerContext, ControllerDescriptor } from '../types.js';
import { isNotFound, jobFinished, JOBS } from './common.js';
import { KeyedLoop } from '../keyed-loop.js';

/** When the Job expires, or undefined when it has no TTL, is not finished or is being deleted. Throws without a finish time. */
export function expiresAt(job: KubeObject): Date | undefined {
  const ttl = (job.spec as { ttlSecondsAfterFinished?: number } | undefined)?.ttlSecondsAfterFinished;
  if (typeof ttl !== 'number' || job.metadata?.deletionTimestamp) return undefined;
  const finished = jobFinished(job);
  if (!finished) return undefined;
  const at = finished.at ? Date.parse(finished.at) : NaN;
  if (Number.isNaN(at)) {
    throw new Error(`unable to find the time when the Job ${job.metadata?.namespace ?? ''}/${job.metadata?.name ?? ''} finished`);
  }
  return new Date(at + ttl * 1000);
}

export interface TTLAfterFinishedOptions {
  client: ApiClient;
  jobs: Informer;
  clock: ControllerContext['clock'];
  onError: (err: unknown) => void;
}

export class TTLAfterFinishedController extends KeyedLoop {

  constructor(private readonly opts: TTLAfterFinishedOptions) {
    super(opts.clock, 'ttl_jobs_to_delete', { maxRetryDelayMs: 60_000 });
    const enqueue = (job: KubeObject): void => {
      if (!job.metadata?.deletionTimestamp && jobFinished(job) && typeof (job.spec as { ttlSecondsAfterFinished?: unknown } | undefined)?.ttlSecondsAfterFinished === 'number') {
        this.add(keyOf(job));
      }
    };
    this.onStop(opts.jobs.addEventHandler({ onAdd: enqueue, onUpdate: (_o, n) => enqueue(n) }));
  }

  start(workers: number): void {
    this.run((key) => this.sync(key), workers, this.opts.onError);
  }

  async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const cached = this.opts.jobs.getByKey(key);
    if (!cached || !this.expired(key, cached)) return;
    // The cached TTL may be stale: decide again on the stored Job.
    let fresh: KubeObject;
    try {
      fresh = await this.opts.client.get(JOBS, namespace, name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (!this.expired(key, fresh)) return;
    try {
      await this.opts.client.delete(JOBS, namespace, name, { propagationPolicy: 'Foreground', preconditions: { uid: fresh.metadata?.uid } });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /** True when the TTL has run out; otherwise arranges to look again when it will. */
  private expired(key: string, job: KubeObject): boolean {
    const at = expiresAt(job);
    if (!at) return false;
    const left = at.getTime() - this.opts.clock.now().getTime();
    if (left <= 0) return true;
    this.wakeAfter(key, left);
    return false;
  }
}

export const ttlAfterFinishedControllerDescriptor: ControllerDescriptor = {
  name: 'ttl-after-finished',
  requires: [{ group: 'batch', resource: 'jobs' }],
  start(ctx) {
    const controller = new TTLAfterFinishedController({ client: ctx.client, jobs: ctx.informers.informerFor(JOBS), clock: ctx.clock, onError: ctx.onError });
    controller.start(ctx.options.concurrentTTLSyncs);
    return controller;
  },
};
