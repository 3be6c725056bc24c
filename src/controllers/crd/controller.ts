// What the CustomResourceDefinition controllers share: an informer over the definitions,
// a work queue of their names, workers, and status writes through the client.
import type { KubeObject } from '../../apimachinery/types.js';
import { crdResource } from '../../apis/apiextensions/index.js';
import { Informer, type ResourceEventHandler } from '../../client/informer.js';
import type { SharedInformerFactory } from '../../client/informer-factory.js';
import type { ApiClient } from '../../client/types.js';
import { ExponentialBackoff, runWorkers, WorkQueue } from '../../client/workqueue.js';
import { workQueueMetrics } from '../../client/workqueue-metrics.js';

export interface CRDControllerOptions {
  client: ApiClient;
  /** Take the definitions' informer from here (shared) rather than own one. */
  informers?: SharedInformerFactory;
  /** Back-off of failed passes. */
  backoff?: { baseMs: number; maxMs: number };
  onError?: (err: unknown) => void;
}

export abstract class CRDController {
  protected readonly queue: WorkQueue<string>;
  protected readonly informer: Informer;
  private readonly ownsInformer: boolean;
  private readonly removers: (() => void)[] = [];
  private workers: Promise<void> | undefined;

  protected constructor(
    protected readonly opts: CRDControllerOptions,
    readonly name: string,
    /** The work queue's name in the metrics, as apiextensions-apiserver names it. */
    queueName: string,
  ) {
    this.queue = new WorkQueue(new ExponentialBackoff<string>(opts.backoff?.baseMs ?? 5, opts.backoff?.maxMs ?? 60_000), { metrics: workQueueMetrics(queueName) });
    this.ownsInformer = !opts.informers;
    this.informer = opts.informers?.informerFor(crdResource()) ?? new Informer(opts.client, crdResource(), { resyncMs: 5 * 60_000, onError: opts.onError });
  }

  protected handle(handler: ResourceEventHandler): void {
    this.removers.push(this.informer.addEventHandler(handler));
  }

  protected enqueue(crd: KubeObject): void {
    const name = crd.metadata?.name;
    if (name) this.queue.add(name);
  }

  protected updateStatus(crd: KubeObject): Promise<KubeObject> {
    return this.opts.client.update(crdResource(), '', crd, 'status');
  }

  /** One pass over one definition; throws to be retried with back-off. */
  abstract sync(name: string): Promise<void>;

  start(): void {
    // A shared informer is started by its factory; starting it here too is harmless.
    this.informer.start();
    this.workers = runWorkers(this.queue, (name) => this.sync(name), { onError: (_key, err) => this.opts.onError?.(err) });
  }

  waitForSync(): Promise<void> {
    return this.informer.waitForSync();
  }

  idle(): boolean {
    return this.informer.hasSynced() && !this.queue.busy();
  }

  async stop(): Promise<void> {
    for (const remove of this.removers) remove();
    this.queue.shutDown();
    if (this.ownsInformer) await this.informer.stop();
    await this.workers;
  }
}
