// The namespace controller: for each namespace with a deletionTimestamp, delete its
// content, wait until it is gone (finalizers of the content are honoured: the namespace
// waits for them), then remove the namespace finalizer through `namespaces/<name>/finalize`
// so the namespace itself disappears. Progress is reported in the status conditions.
import { isApiError } from '../../apimachinery/errors.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import type { ApiClient } from '../../client/types.js';
import { namespaceFinalizer } from '../../naming/index.js';
import type { ResourceTable } from '../../rest/index.js';
import { Informer } from '../../client/informer.js';
import type { SharedInformerFactory } from '../../client/informer-factory.js';
import { runWorkers, WorkQueue, ExponentialBackoff } from '../../client/workqueue.js';
import { workQueueMetrics } from '../../client/workqueue-metrics.js';
import { deleteAllContent, deletionConditions, sameConditions, type NamespaceCondition } from './deleter.js';
import type { RunningController } from '../types.js';

export const NAMESPACES: GroupVersionResource = { group: '', version: 'v1', resource: 'namespaces' };

export interface NamespaceControllerOptions {
  client: ApiClient;
  table: ResourceTable;
  workers?: number;
  /** How long to wait before looking again at a namespace whose content is still going away. */
  contentRemainingDelayMs?: number;
  /** Back-off of failed passes. */
  backoff?: { baseMs: number; maxMs: number };
  resyncMs?: number;
  /** Take the namespace informer from here (shared with other consumers) rather than own one. */
  informers?: SharedInformerFactory;
  onError?: (err: unknown) => void;
}


interface NamespaceSpec {
  finalizers?: string[];
}

interface NamespaceStatus {
  phase?: string;
  conditions?: NamespaceCondition[];
}

function specOf(ns: KubeObject): NamespaceSpec {
  return (ns.spec ?? {}) as NamespaceSpec;
}

function statusOf(ns: KubeObject): NamespaceStatus {
  return (ns.status ?? {}) as NamespaceStatus;
}

/** Retries `attempt` on 409 Conflict, re-reading the namespace each time. */
async function onFreshNamespace(client: ApiClient, name: string, attempt: (ns: KubeObject) => Promise<void>): Promise<void> {
  for (let i = 0; ; i++) {
    const ns = await client.get(NAMESPACES, '', name);
    try {
      await attempt(ns);
      return;
    } catch (err) {
      if (!(isApiError(err) && err.code === 409) || i >= 4) throw err;
    }
  }
}

export class NamespaceController implements RunningController {
  private readonly queue: WorkQueue<string>;
  private readonly informer: Informer;
  private readonly ownsInformer: boolean;
  private readonly removeHandler: () => void;
  private workers: Promise<void> | undefined;

  constructor(private readonly opts: NamespaceControllerOptions) {
    this.queue = new WorkQueue(new ExponentialBackoff<string>(opts.backoff?.baseMs ?? 5, opts.backoff?.maxMs ?? 60_000), { metrics: workQueueMetrics('namespace') });
    this.ownsInformer = !opts.informers;
    this.informer =
      opts.informers?.informerFor(NAMESPACES) ??
      new Informer(opts.client, NAMESPACES, { resyncMs: opts.resyncMs ?? 5 * 60_000, onError: opts.onError });
    const enqueue = (ns: KubeObject): void => {
      if (ns.metadata?.deletionTimestamp && ns.metadata.name) this.queue.add(ns.metadata.name);
    };
    this.removeHandler = this.informer.addEventHandler({ onAdd: enqueue, onUpdate: (_old, ns) => enqueue(ns) });
  }

  start(): void {
    // A shared informer is started by its factory; starting it here too is harmless.
    this.informer.start();
    this.workers = runWorkers(this.queue, (name) => this.sync(name), {
      workers: this.opts.workers ?? 2,
      onError: (_key, err) => this.opts.onError?.(err),
    });
  }

  idle(): boolean {
    return this.informer.hasSynced() && !this.queue.busy();
  }

  async stop(): Promise<void> {
    this.removeHandler();
    this.queue.shutDown();
    if (this.ownsInformer) await this.informer.stop();
    await this.workers;
  }

  /** Waits for the informer's first list (tests and start-up ordering). */
  waitForSync(): Promise<void> {
    return this.informer.waitForSync();
  }

  /** One pass over one namespace. Throws to be retried with back-off. */
  async sync(name: string): Promise<void> {
    const { client, table } = this.opts;
    let ns: KubeObject;
    try {
      ns = await client.get(NAMESPACES, '', name);
    } catch (err) {
      if (isApiError(err) && err.code === 404) return;
      throw err;
    }
    if (!ns.metadata?.deletionTimestamp) return;
    if (!(specOf(ns).finalizers ?? []).includes(namespaceFinalizer())) return;

    if (statusOf(ns).phase !== 'Terminating') {
      await onFreshNamespace(client, name, async (fresh) => {
        if (statusOf(fresh).phase === 'Terminating') return;
        await client.update(NAMESPACES, '', { ...fresh, status: { ...statusOf(fresh), phase: 'Terminating' } }, 'status');
      });
    }

    const result = await deleteAllContent(client, table, name);
    await onFreshNamespace(client, name, async (fresh) => {
      const existing = statusOf(fresh).conditions ?? [];
      const conditions = deletionConditions(existing, result, new Date());
      if (sameConditions(existing, conditions)) return;
      await client.update(NAMESPACES, '', { ...fresh, status: { ...statusOf(fresh), conditions } }, 'status');
    });

    if (result.errors.length > 0) throw new Error(`namespace ${name}: ${result.errors.join('; ')}`);
    if (result.remaining.size > 0) {
      this.queue.addAfter(name, this.opts.contentRemainingDelayMs ?? 1000);
      return;
    }
    await onFreshNamespace(client, name, async (fresh) => {
      const finalizers = specOf(fresh).finalizers ?? [];
      if (!finalizers.includes(namespaceFinalizer())) return;
      const spec = { ...specOf(fresh), finalizers: finalizers.filter((f) => f !== namespaceFinalizer()) };
      await client.update(NAMESPACES, '', { ...fresh, spec }, 'finalize');
    }).catch((err: unknown) => {
      // Removing the last finalizer deletes the namespace; a 404 afterwards means done.
      if (!(isApiError(err) && err.code === 404)) throw err;
    });
  }
}

export function startNamespaceController(opts: NamespaceControllerOptions): NamespaceController {
  const controller = new NamespaceController(opts);
  controller.start();
  return controller;
}
