// A controller that keeps one object in every active namespace: a work queue of namespace
// names fed by the namespace informer and by changes to the kept objects, and a sync that
// creates or repairs the object. The service account and root CA controllers are two of them.
import { isApiError } from '../apimachinery/errors.js';
import type { GroupVersionResource, KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import { Informer } from '../client/informer.js';
import type { SharedInformerFactory } from '../client/informer-factory.js';
import type { RunningController } from './types.js';
import { NAMESPACES } from './namespace/controller.js';
import { ExponentialBackoff, runWorkers, WorkQueue } from '../client/workqueue.js';
import { workQueueMetrics } from '../client/workqueue-metrics.js';

export interface PerNamespaceObjectSpec {
  /** For errors and logs. */
  controller: string;
  /** The work queue's name in the metrics, as kube-controller-manager names it. */
  queueName: string;
  resource: GroupVersionResource;
  name: string;
  /** The object to create in `namespace`. */
  desired(namespace: string): KubeObject;
  /** The object with its drift repaired, or undefined when it is as it should be. */
  repair?(current: KubeObject): KubeObject | undefined;
}

export interface PerNamespaceOptions {
  client: ApiClient;
  informers: SharedInformerFactory;
  onError?: (err: unknown) => void;
  workers?: number;
}

function active(ns: KubeObject | undefined): boolean {
  if (!ns || ns.metadata?.deletionTimestamp) return false;
  const phase = (ns.status as { phase?: unknown } | undefined)?.phase;
  return phase !== 'Terminating';
}

export class PerNamespaceObjectController implements RunningController {
  private readonly queue: WorkQueue<string>;
  private readonly namespaces: Informer;
  private readonly objects: Informer;
  private readonly removers: (() => void)[] = [];
  private readonly workers: Promise<void>;

  constructor(
    private readonly spec: PerNamespaceObjectSpec,
    private readonly opts: PerNamespaceOptions,
  ) {
    this.queue = new WorkQueue<string>(new ExponentialBackoff<string>(5, 60_000), { metrics: workQueueMetrics(spec.queueName) });
    this.namespaces = opts.informers.informerFor(NAMESPACES);
    this.objects = opts.informers.informerFor(spec.resource, { fieldSelector: `metadata.name=${spec.name}` });
    const enqueueNamespace = (ns: KubeObject): void => {
      if (active(ns) && ns.metadata?.name) this.queue.add(ns.metadata.name);
    };
    this.removers.push(this.namespaces.addEventHandler({ onAdd: enqueueNamespace, onUpdate: (_old, ns) => enqueueNamespace(ns) }));
    const enqueueOwner = (obj: KubeObject): void => {
      if (obj.metadata?.name === spec.name && obj.metadata.namespace) this.queue.add(obj.metadata.namespace);
    };
    this.removers.push(this.objects.addEventHandler({ onUpdate: (_old, obj) => enqueueOwner(obj), onDelete: enqueueOwner }));
    void Promise.all([this.namespaces.waitForSync(), this.objects.waitForSync()]).then(() => {
      if (this.synced()) for (const ns of this.namespaces.listKeys()) this.queue.add(ns);
    });
    this.workers = runWorkers(this.queue, (ns) => this.sync(ns), {
      workers: opts.workers ?? 2,
      onError: (_key, err) => opts.onError?.(err),
    });
  }

  async sync(namespace: string): Promise<void> {
    // Until both caches are filled nothing can be decided; every namespace is queued again then.
    if (!this.synced()) return;
    if (!active(this.namespaces.get('', namespace))) return;
    const current = this.objects.get(namespace, this.spec.name);
    const { client } = this.opts;
    try {
      if (!current) {
        await client.create(this.spec.resource, namespace, this.spec.desired(namespace));
        return;
      }
      const repaired = this.spec.repair?.(current);
      if (repaired) await client.update(this.spec.resource, namespace, repaired);
    } catch (err) {
      // Already created (the cache lags), or the namespace is going away: nothing to do.
      if (isApiError(err) && (err.code === 409 || err.code === 404)) return;
      if (isApiError(err) && err.code === 403 && /being terminated/.test(err.message)) return;
      throw err;
    }
  }

  private synced(): boolean {
    return this.namespaces.hasSynced() && this.objects.hasSynced();
  }

  idle(): boolean {
    return this.synced() && !this.queue.busy();
  }

  async stop(): Promise<void> {
    for (const remove of this.removers) remove();
    this.queue.shutDown();
    await this.workers;
  }
}
