// The garbage collector (kube-controller-manager's `garbagecollector`): informers over every
// resource that can be listed, watched and deleted feed the dependency graph; two queues act
// on it. attemptToDelete deletes objects whose owners are all gone (and finishes foreground
// deletions); attemptToOrphan strips the owner reference from the dependents of an object
// deleted with the orphan finalizer, then removes that finalizer.
import { isApiError } from '../../apimachinery/errors.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import type { EventRecorder } from '../../client/events.js';
import type { ApiClient } from '../../client/types.js';
import { ExponentialBackoff, runWorkers, WorkQueue } from '../../client/workqueue.js';
import { workQueueMetrics } from '../../client/workqueue-metrics.js';
import { group as namedGroup } from '../../naming/index.js';
import type { ControllerContext, DiscoveredResource, RunningController } from '../types.js';
import {
  DependencyGraph,
  FOREGROUND_FINALIZER,
  formatIdentity,
  hasFinalizer,
  identityOf,
  ORPHAN_FINALIZER,
  ownerRefsOf,
  type GraphNode,
  type GraphWork,
  type Identity,
  type OwnerRef,
} from './graph.js';

/** How often the served resources are looked at again (kube-controller-manager: 30 s). */
export const RESYNC_DISCOVERY_MS = 30_000;
const ABSENT_CACHE_SIZE = 10_000;

function apiVersionOf(r: { group: string; version: string }): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

function isCode(err: unknown, ...codes: number[]): boolean {
  return isApiError(err) && codes.includes(err.code);
}

/** Events are never collected (Kubernetes' DefaultIgnoredResources). */
function ignored(r: DiscoveredResource): boolean {
  return r.resource === 'events' && (r.group === '' || r.group === namedGroup('events'));
}

export function deletable(resources: DiscoveredResource[]): DiscoveredResource[] {
  return resources.filter((r) => !r.resource.includes('/') && ['delete', 'list', 'watch'].every((v) => r.verbs.includes(v)) && !ignored(r));
}

export class GarbageCollector implements RunningController {
  readonly graph = new DependencyGraph();
  private readonly deleteQueue: WorkQueue<string>;
  private readonly orphanQueue: WorkQueue<string>;
  private readonly monitors = new Map<string, () => void>();
  /** `group/version/kind` (and `group/kind`) to a served resource. */
  private byKind = new Map<string, DiscoveredResource>();
  private readonly absent = new Map<string, true>();
  private readonly reported = new Set<string>();
  private inFlight = 0;
  private workers: Promise<void>[] = [];
  private cancelResync: (() => void) | undefined;
  private unsubscribe: (() => void) | undefined;
  /** A look at discovery runs now; another is wanted once it ends. */
  private resyncing: Promise<void> | undefined;
  private resyncAgain = false;
  private stopped = false;
  private readonly client: ApiClient;
  private readonly recorder: EventRecorder;

  constructor(private readonly ctx: ControllerContext) {
    this.client = ctx.client;
    this.recorder = ctx.eventRecorder('garbage-collector-controller');
    this.deleteQueue = new WorkQueue(new ExponentialBackoff<string>(5, 1_000_000), { metrics: workQueueMetrics('garbage_collector_attempt_to_delete') });
    this.orphanQueue = new WorkQueue(new ExponentialBackoff<string>(5, 1_000_000), { metrics: workQueueMetrics('garbage_collector_attempt_to_orphan') });
  }

  async start(): Promise<void> {
    // A new custom resource is watched as soon as it is served, not at the next periodic look.
    this.unsubscribe = this.ctx.onResourcesChanged(() => void this.resyncSoon());
    await this.resync();
    const workers = Math.max(1, this.ctx.options.concurrentGCSyncs);
    const onError = (_key: string, err: unknown): void => this.ctx.onError(err);
    this.workers = [
      runWorkers(this.deleteQueue, (uid) => this.counted(() => this.attemptToDelete(uid)), { workers, onError }),
      runWorkers(this.orphanQueue, (uid) => this.counted(() => this.attemptToOrphan(uid)), { workers, onError }),
    ];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.cancelResync?.();
    for (const remove of this.monitors.values()) remove();
    this.monitors.clear();
    this.deleteQueue.shutDown();
    this.orphanQueue.shutDown();
    await Promise.all(this.workers);
  }

  idle(): boolean {
    // busy(), not len(): a key handed straight to a waiting worker is in no queue, yet not processed.
    return this.inFlight === 0 && !this.deleteQueue.busy() && !this.orphanQueue.busy();
  }

  private async resyncSoon(): Promise<void> {
    if (this.resyncing) {
      this.resyncAgain = true;
      return;
    }
    this.cancelResync?.();
    this.resyncing = this.resync();
    await this.resyncing;
    this.resyncing = undefined;
    if (this.resyncAgain) {
      this.resyncAgain = false;
      await this.resyncSoon();
    }
  }

  /** Monitors every deletable resource served now; schedules the next look. */
  async resync(): Promise<void> {
    if (this.stopped) return;
    try {
      const resources = deletable(await this.ctx.discover());
      const byKind = new Map<string, DiscoveredResource>();
      for (const r of resources) {
        byKind.set(`${r.group}/${r.version}/${r.kind}`, r);
        if (!byKind.has(`${r.group}//${r.kind}`)) byKind.set(`${r.group}//${r.kind}`, r);
      }
      this.byKind = byKind;
      const wanted = new Set<string>();
      for (const r of resources) {
        const key = `${r.group}/${r.version}/${r.resource}`;
        wanted.add(key);
        if (!this.monitors.has(key)) this.monitor(r);
      }
      for (const [key, remove] of this.monitors) {
        if (wanted.has(key)) continue;
        remove();
        this.monitors.delete(key);
      }
    } catch (err) {
      this.ctx.onError(err);
    } finally {
      if (!this.stopped) this.cancelResync = this.ctx.clock.schedule(RESYNC_DISCOVERY_MS, () => void this.resync());
    }
  }

  private monitor(r: DiscoveredResource): void {
    const gvr: GroupVersionResource = { group: r.group, version: r.version, resource: r.resource };
    const apiVersion = apiVersionOf(r);
    // The graph reads only metadata (owners, finalizers, deletion), as kube's metadata informers give it.
    const informer = this.ctx.informers.informerFor(gvr, { metadataOnly: true });
    const observe = (oldObj: KubeObject | undefined, obj: KubeObject): void => {
      if (!obj.metadata?.uid) return;
      this.apply(this.graph.observe(oldObj, obj, identityOf(obj, apiVersion, r.kind)));
    };
    const remove = informer.addEventHandler({
      onAdd: (obj) => observe(undefined, obj),
      onUpdate: (oldObj, obj) => observe(oldObj, obj),
      onDelete: (obj) => {
        const uid = obj.metadata?.uid;
        if (!uid) return;
        this.markAbsent(identityOf(obj, apiVersion, r.kind));
        this.apply(this.graph.remove(uid));
      },
    });
    informer.start();
    this.monitors.set(`${r.group}/${r.version}/${r.resource}`, remove);
  }

  private apply(work: GraphWork): void {
    for (const n of work.attemptToDelete) this.deleteQueue.add(n.identity.uid);
    for (const n of work.attemptToOrphan) this.orphanQueue.add(n.identity.uid);
    for (const { dependent, owner } of work.invalidNamespace) this.reportInvalidNamespace(dependent.identity, owner);
  }

  private async counted(fn: () => Promise<void>): Promise<void> {
    this.inFlight++;
    try {
      await fn();
    } finally {
      this.inFlight--;
    }
  }

  private reportInvalidNamespace(dependent: Identity, owner: OwnerRef): void {
    const key = `${dependent.uid}/${owner.uid}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    const invalid = { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid: owner.uid, namespace: dependent.namespace };
    const regarding: KubeObject = {
      apiVersion: dependent.apiVersion,
      kind: dependent.kind,
      metadata: { name: dependent.name, uid: dependent.uid, ...(dependent.namespace ? { namespace: dependent.namespace } : {}) },
    };
    this.recorder.eventf(
      regarding,
      undefined,
      'Warning',
      'OwnerRefInvalidNamespace',
      'GarbageCollect',
      `ownerRef ${formatIdentity(invalid)} does not exist in namespace ${JSON.stringify(dependent.namespace)}`,
    );
  }

  private absentKey(i: { uid: string; namespace: string }): string {
    return `${i.namespace}/${i.uid}`;
  }

  private markAbsent(i: Identity): void {
    const key = this.absentKey(i);
    this.absent.delete(key);
    this.absent.set(key, true);
    if (this.absent.size > ABSENT_CACHE_SIZE) this.absent.delete(this.absent.keys().next().value as string);
  }

  private resourceFor(apiVersion: string, kind: string): DiscoveredResource {
    const { group, version } = splitApiVersion(apiVersion);
    const r = this.byKind.get(`${group}/${version}/${kind}`) ?? this.byKind.get(`${group}//${kind}`);
    // Unknown kinds are retried with back-off: a custom resource may be served soon.
    if (!r) throw new Error(`unable to get REST mapping for ${apiVersion}/${kind}`);
    return r;
  }

  private async getLive(i: Identity): Promise<KubeObject | undefined> {
    const r = this.resourceFor(i.apiVersion, i.kind);
    try {
      const obj = await this.client.get(r, r.namespaced ? i.namespace : '', i.name);
      return obj.metadata?.uid === i.uid ? obj : undefined;
    } catch (err) {
      if (isCode(err, 404)) return undefined;
      throw err;
    }
  }

  /** A confirmed-absent virtual node leaves the graph; its dependents are looked at again. */
  private virtualDelete(node: GraphNode): void {
    this.markAbsent(node.identity);
    if (this.graph.get(node.identity.uid) === node) this.apply(this.graph.remove(node.identity.uid));
  }

  async attemptToDelete(uid: string): Promise<void> {
    const node = this.graph.get(uid);
    if (!node) return;
    if (node.beingDeleted && !node.deletingDependents) return;
    // A namespaced owner named from a cluster-scoped object has no place to look: its
    // dependents report the invalid reference; retrying cannot help.
    if (node.virtual && node.identity.namespace === '' && this.resourceFor(node.identity.apiVersion, node.identity.kind).namespaced) return;
    const latest = await this.getLive(node.identity);
    if (!latest) {
      // Seen by an informer in the meantime: the informer's delete event will tell.
      if (node.virtual) this.virtualDelete(node);
      else this.apply(this.graph.remove(uid));
      return;
    }
    if (node.deletingDependents) return this.finishForeground(node, latest);
    const refs = ownerRefsOf(latest);
    if (refs.length === 0) return;

    const solid: OwnerRef[] = [];
    const dangling: OwnerRef[] = [];
    const waiting: OwnerRef[] = [];
    for (const ref of refs) {
      const state = await this.ownerState(node, ref);
      if (state === 'invalid') continue;
      if (state === 'absent') dangling.push(ref);
      else if (state === 'waiting') waiting.push(ref);
      else solid.push(ref);
    }
    if (solid.length + dangling.length + waiting.length === 0) return; // only invalid references: never collected for them

    const m = latest.metadata ?? {};
    const name = m.name ?? '';
    const r = this.resourceFor(node.identity.apiVersion, node.identity.kind);
    const ns = r.namespaced ? node.identity.namespace : '';
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return;
      const drop = new Set([...dangling, ...waiting].map((o) => o.uid));
      const ownerReferences = (m.ownerReferences ?? []).filter((o) => !drop.has(o.uid));
      await this.ignoreGone(this.client.patch(r, ns, name, { metadata: { ownerReferences, resourceVersion: m.resourceVersion, uid: m.uid } }));
      return;
    }
    if (waiting.length > 0 && node.dependents.size > 0) {
      if ([...node.dependents].some((d) => d.deletingDependents)) {
        // Owner and dependent both wait in the foreground: unblock this object's references so no cycle deadlocks.
        const waitingUids = new Set(waiting.map((o) => o.uid));
        const ownerReferences = (m.ownerReferences ?? []).map((o) => (waitingUids.has(o.uid) ? { ...o, blockOwnerDeletion: false } : o));
        await this.ignoreGone(this.client.patch(r, ns, name, { metadata: { ownerReferences, resourceVersion: m.resourceVersion, uid: m.uid } }));
      }
      await this.deleteObject(r, ns, name, m.uid ?? '', 'Foreground');
      return;
    }
    const policy = hasFinalizer(latest, ORPHAN_FINALIZER) ? 'Orphan' : hasFinalizer(latest, FOREGROUND_FINALIZER) ? 'Foreground' : 'Background';
    await this.deleteObject(r, ns, name, m.uid ?? '', policy);
  }

  /** Whether the owner `ref` of `node` exists, is gone, waits for its dependents, or cannot be (scope). */
  private async ownerState(node: GraphNode, ref: OwnerRef): Promise<'solid' | 'absent' | 'waiting' | 'invalid'> {
    const r = this.resourceFor(ref.apiVersion, ref.kind);
    if (r.namespaced && node.identity.namespace === '') {
      this.reportInvalidNamespace(node.identity, ref);
      return 'invalid';
    }
    const namespace = r.namespaced ? node.identity.namespace : '';
    if (this.absent.has(this.absentKey({ uid: ref.uid, namespace }))) return 'absent';
    // The graph's view errs on the safe side: an owner it has seen counts as present.
    const seen = this.graph.get(ref.uid);
    if (seen && !seen.virtual && seen.identity.namespace === namespace) return seen.deletingDependents ? 'waiting' : 'solid';
    let owner: KubeObject | undefined;
    try {
      owner = await this.client.get(r, namespace, ref.name);
    } catch (err) {
      if (!isCode(err, 404)) throw err;
    }
    if (!owner || owner.metadata?.uid !== ref.uid) {
      this.markAbsent({ ...ref, namespace });
      if (seen && !seen.virtual && r.namespaced) this.reportInvalidNamespace(node.identity, ref);
      return 'absent';
    }
    return owner.metadata?.deletionTimestamp && hasFinalizer(owner, FOREGROUND_FINALIZER) ? 'waiting' : 'solid';
  }

  /** A foreground deletion: delete blocking dependents first, then drop the finalizer. */
  private async finishForeground(node: GraphNode, latest: KubeObject): Promise<void> {
    const blocking = this.graph.blockingDependents(node);
    if (blocking.length > 0) {
      for (const dep of blocking) if (!dep.deletingDependents) this.deleteQueue.add(dep.identity.uid);
      return;
    }
    await this.removeFinalizer(node.identity, latest, FOREGROUND_FINALIZER);
  }

  async attemptToOrphan(uid: string): Promise<void> {
    const node = this.graph.get(uid);
    if (!node) return;
    for (const dep of [...node.dependents]) {
      const r = this.resourceFor(dep.identity.apiVersion, dep.identity.kind);
      const ns = r.namespaced ? dep.identity.namespace : '';
      for (let attempt = 0; ; attempt++) {
        const live = await this.getLive(dep.identity);
        if (!live) break;
        const refs = live.metadata?.ownerReferences ?? [];
        if (!refs.some((o) => o.uid === uid)) break;
        const m = live.metadata ?? {};
        const ownerReferences = refs.filter((o) => o.uid !== uid);
        try {
          await this.ignoreGone(this.client.patch(r, ns, m.name ?? '', { metadata: { ownerReferences: ownerReferences.length ? ownerReferences : null, resourceVersion: m.resourceVersion, uid: m.uid } }));
          break;
        } catch (err) {
          if (!isCode(err, 409) || attempt >= 4) throw err;
        }
      }
    }
    const latest = await this.getLive(node.identity);
    if (latest) await this.removeFinalizer(node.identity, latest, ORPHAN_FINALIZER);
  }

  private async removeFinalizer(i: Identity, latest: KubeObject, finalizer: string): Promise<void> {
    const r = this.resourceFor(i.apiVersion, i.kind);
    const ns = r.namespaced ? i.namespace : '';
    let current: KubeObject | undefined = latest;
    for (let attempt = 0; current; attempt++) {
      const finalizers = current.metadata?.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return;
      const m = current.metadata ?? {};
      const next = finalizers.filter((f) => f !== finalizer);
      try {
        await this.ignoreGone(this.client.patch(r, ns, i.name, { metadata: { finalizers: next.length ? next : null, resourceVersion: m.resourceVersion, uid: m.uid } }));
        return;
      } catch (err) {
        if (!isCode(err, 409) || attempt >= 4) throw err;
      }
      current = await this.getLive(i);
    }
  }

  private async deleteObject(r: GroupVersionResource, ns: string, name: string, uid: string, propagationPolicy: 'Orphan' | 'Foreground' | 'Background'): Promise<void> {
    try {
      await this.client.delete(r, ns, name, { preconditions: { uid }, propagationPolicy });
    } catch (err) {
      // Gone, or replaced by another object of the same name: nothing of ours to delete.
      if (isCode(err, 404, 409)) return;
      throw err;
    }
  }

  private async ignoreGone<T>(p: Promise<T>): Promise<T | undefined> {
    try {
      return await p;
    } catch (err) {
      if (isCode(err, 404)) return undefined;
      throw err;
    }
  }
}

export async function startGarbageCollector(ctx: ControllerContext): Promise<GarbageCollector> {
  const gc = new GarbageCollector(ctx);
  await gc.start();
  return gc;
}
