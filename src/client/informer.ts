// A shared informer: list, then watch from the list's resourceVersion, keeping a local cache
// by namespace/name and telling handlers about adds, updates and deletes. A 410 (history
// expired) or a failed watch leads to a fresh list; a watch the server ended normally is
// resumed from the last resourceVersion seen. Resync replays every cached object as an
// update so controllers can correct drift.
//
// As in client-go, the cache's objects are shared: handlers and readers get the cached object
// itself, never a copy, and must not change it; a caller that wants to change one copies it
// first (`deepCopy`). Each object is deep-frozen once, when it is stored, so a caller that
// forgets fails at once rather than corrupting what everyone else reads.
import { ApiError, isApiError, type Status } from '../apimachinery/errors.js';
import { isPlainObject, type GroupVersionResource, type KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from './types.js';
import { abortController } from '../apimachinery/abort.js';
import { deepFreeze } from '../apimachinery/freeze.js';

/** An object of an informer's cache: shared by every reader, frozen, never to be changed in place. */
export type CachedObject = Readonly<KubeObject>;

/** Handlers receive the cached objects themselves (frozen): copy one before changing it. */
export interface ResourceEventHandler {
  onAdd?(obj: CachedObject): void;
  onUpdate?(oldObj: CachedObject, newObj: CachedObject): void;
  onDelete?(obj: CachedObject): void;
}

export interface InformerOptions {
  /** '' (default) watches every namespace. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Replay the cache to handlers as updates this often; 0 (default) never. */
  resyncMs?: number;
  /** Page size of the initial list (default 500, as kubectl and client-go). */
  pageSize?: number;
  /** Server-side lifetime of each watch; by default 5 to 10 minutes, spread at random. */
  watchTimeoutSeconds?: number;
  /** Back-off after a failed list or watch: starts at `initialMs`, doubles up to `maxMs`. */
  backoff?: { initialMs: number; maxMs: number };
  /** Errors of the list/watch loop and of handlers (the loop keeps going). */
  onError?: (err: unknown) => void;
  /**
   * Keep only what a metadata informer would (type and metadata, without managed fields):
   * for controllers that read nothing else, so that the cache does not hold whole objects.
   */
  metadataOnly?: boolean;
  /**
   * Keep objects without `metadata.managedFields`, as kube-controller-manager's and
   * kube-scheduler's informers do from 1.28: no controller reads them, an update that leaves them out
   * keeps the stored ones, and they are a large part of each object held.
   */
  dropManagedFields?: boolean;
}

/** The object as a metadata informer holds it: its type and its metadata without managed fields. */
export function metadataOf(obj: KubeObject): KubeObject {
  const { managedFields: _managed, ...metadata } = obj.metadata ?? {};
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata };
}

/** The cache key of an object: `namespace/name`, or `name` when cluster-scoped. */
export function keyOf(obj: KubeObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

/** The values an object is filed under in one index (client-go's `IndexFunc`); none leaves it out. */
export type IndexFunc = (obj: CachedObject) => readonly string[];

/** The index every informer keeps: objects by namespace ('' for cluster-scoped ones). */
export const NAMESPACE_INDEX = 'namespace';

/** One index: the cache keys filed under each value. */
interface Index {
  fn: IndexFunc;
  byValue: Map<string, Set<string>>;
}

export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

type WatchOutcome = 'relist' | 'rewatch';

export class Informer {
  private readonly cache = new Map<string, CachedObject>();
  private readonly indices = new Map<string, Index>([[NAMESPACE_INDEX, { fn: (o) => [o.metadata?.namespace ?? ''], byValue: new Map() }]]);
  private readonly handlers = new Set<ResourceEventHandler>();
  private resourceVersion = '';
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private running: Promise<void> | undefined;
  private readonly stopController = new AbortController();
  private resyncTimer: NodeJS.Timeout | undefined;
  private sleepWake: (() => void) | undefined;

  constructor(
    private readonly client: ApiClient,
    readonly resource: GroupVersionResource,
    private readonly opts: InformerOptions = {},
  ) {}

  /** Registers a handler; it first hears an add for every object already cached. */
  addEventHandler(handler: ResourceEventHandler): () => void {
    this.handlers.add(handler);
    if (this.synced) for (const obj of this.cache.values()) this.call(handler, 'onAdd', obj);
    return () => this.handlers.delete(handler);
  }

  start(): void {
    if (this.running || this.stopController.signal.aborted) return;
    this.running = this.run();
    if (this.opts.resyncMs && this.opts.resyncMs > 0) {
      this.resyncTimer = setInterval(() => this.resync(), this.opts.resyncMs);
      this.resyncTimer.unref();
    }
  }

  async stop(): Promise<void> {
    abortController(this.stopController);
    this.sleepWake?.();
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    for (const w of this.syncWaiters.splice(0)) w();
    await this.running;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves after the first complete list (or when the informer stops). */
  waitForSync(): Promise<void> {
    if (this.synced || this.stopController.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  /** The cached object (shared and frozen: copy it to change it). */
  get(namespace: string, name: string): CachedObject | undefined {
    return this.cache.get(namespace ? `${namespace}/${name}` : name);
  }

  getByKey(key: string): CachedObject | undefined {
    return this.cache.get(key);
  }

  /** Every cached object (shared and frozen); the array is the caller's own. */
  list(): CachedObject[] {
    return [...this.cache.values()];
  }

  listKeys(): string[] {
    return [...this.cache.keys()];
  }

  /**
   * Adds indexes (client-go's `AddIndexers`), filled at once from what is cached. A name
   * already in use is refused unless it is the same function (shared informers' consumers
   * may each ask for the same index).
   */
  addIndexers(indexers: Record<string, IndexFunc>): void {
    for (const [name, fn] of Object.entries(indexers)) {
      const have = this.indices.get(name);
      if (have) {
        if (have.fn !== fn) throw new Error(`informer of ${this.resource.resource}: index "${name}" already exists`);
        continue;
      }
      const index: Index = { fn, byValue: new Map() };
      this.indices.set(name, index);
      for (const [key, obj] of this.cache) this.fileUnder(index, key, obj);
    }
  }

  /** The cached objects filed under `value` in the index `name` (shared and frozen). */
  byIndex(name: string, value: string): CachedObject[] {
    const keys = this.index(name).byValue.get(value);
    const out: CachedObject[] = [];
    if (keys) for (const key of keys) out.push(this.cache.get(key)!);
    return out;
  }

  /** The cache keys filed under `value` in the index `name`. */
  indexKeys(name: string, value: string): string[] {
    return [...(this.index(name).byValue.get(value) ?? [])];
  }

  private index(name: string): Index {
    const index = this.indices.get(name);
    if (!index) throw new Error(`informer of ${this.resource.resource}: no index "${name}"`);
    return index;
  }

  private fileUnder(index: Index, key: string, obj: CachedObject): void {
    for (const value of index.fn(obj)) {
      let keys = index.byValue.get(value);
      if (!keys) index.byValue.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  private unfile(index: Index, key: string, obj: CachedObject): void {
    for (const value of index.fn(obj)) {
      const keys = index.byValue.get(value);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) index.byValue.delete(value);
    }
  }

  /** Puts `obj` in the cache under `key` and its indexes; returns what it replaced. */
  private store(key: string, obj: CachedObject): CachedObject | undefined {
    const old = this.cache.get(key);
    this.cache.set(key, obj);
    for (const index of this.indices.values()) {
      if (old) this.unfile(index, key, old);
      this.fileUnder(index, key, obj);
    }
    return old;
  }

  private remove(key: string): void {
    const old = this.cache.get(key);
    if (!old) return;
    this.cache.delete(key);
    for (const index of this.indices.values()) this.unfile(index, key, old);
  }

  /** The resourceVersion of the last list or event applied. */
  lastSyncResourceVersion(): string {
    return this.resourceVersion;
  }

  private get stopped(): boolean {
    return this.stopController.signal.aborted;
  }

  private call<M extends keyof ResourceEventHandler>(handler: ResourceEventHandler, method: M, ...args: unknown[]): void {
    const fn = handler[method] as ((...a: unknown[]) => void) | undefined;
    if (!fn) return;
    try {
      fn.apply(handler, args);
    } catch (err) {
      this.opts.onError?.(err);
    }
  }

  private emit<M extends keyof ResourceEventHandler>(method: M, ...args: KubeObject[]): void {
    for (const h of this.handlers) this.call(h, method, ...args);
  }

  private resync(): void {
    if (!this.synced) return;
    for (const obj of this.cache.values()) this.emit('onUpdate', obj, obj);
  }

  private async run(): Promise<void> {
    let delay = this.opts.backoff?.initialMs ?? 1000;
    const maxDelay = this.opts.backoff?.maxMs ?? 30_000;
    while (!this.stopped) {
      try {
        await this.listAndReplace();
        delay = this.opts.backoff?.initialMs ?? 1000;
        let outcome: WatchOutcome = 'rewatch';
        while (!this.stopped && outcome === 'rewatch') outcome = await this.watchOnce();
      } catch (err) {
        if (this.stopped) break;
        this.opts.onError?.(err);
        await this.sleep(delay);
        delay = Math.min(delay * 2, maxDelay);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.sleepWake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Lists every page from one snapshot; a continue token that expired restarts the list. */
  private async listAll(): Promise<{ items: KubeObject[]; resourceVersion: string }> {
    const base = { labelSelector: this.opts.labelSelector, fieldSelector: this.opts.fieldSelector };
    const limit = this.opts.pageSize ?? 500;
    for (let attempt = 0; ; attempt++) {
      const items: KubeObject[] = [];
      let cont: string | undefined;
      let rv = '';
      try {
        do {
          const page = await this.client.list(this.resource, this.opts.namespace ?? '', { ...base, limit, continue: cont });
          for (const item of page.items) items.push(this.held(item));
          rv = page.metadata.resourceVersion ?? rv;
          cont = page.metadata.continue || undefined;
        } while (cont && !this.stopped);
        return { items, resourceVersion: rv };
      } catch (err) {
        if (attempt === 0 && isApiError(err) && err.code === 410 && cont) continue;
        throw err;
      }
    }
  }

  private async listAndReplace(): Promise<void> {
    const { items, resourceVersion } = await this.listAll();
    if (this.stopped) return;
    const seen = new Set<string>();
    for (const obj of items) {
      const key = keyOf(obj);
      seen.add(key);
      this.upsert(key, obj);
    }
    for (const [key, old] of [...this.cache]) {
      if (seen.has(key)) continue;
      this.remove(key);
      this.emit('onDelete', old);
    }
    this.resourceVersion = resourceVersion;
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  /** What the cache keeps of an object the server sent (the informer's own: frozen here, once). */
  private held(obj: KubeObject): KubeObject {
    if (this.opts.metadataOnly) return deepFreeze(metadataOf(obj));
    // The client decoded this object for this informer alone: trimmed in place.
    if (this.opts.dropManagedFields && obj.metadata?.managedFields !== undefined) delete obj.metadata.managedFields;
    return deepFreeze(obj);
  }

  private upsert(key: string, obj: KubeObject): void {
    const old = this.store(key, obj);
    if (!old) this.emit('onAdd', obj);
    else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) this.emit('onUpdate', old, obj);
  }

  private async watchOnce(): Promise<WatchOutcome> {
    const ac = new AbortController();
    const onStop = (): void => abortController(ac);
    this.stopController.signal.addEventListener('abort', onStop);
    // Spread watch restarts over time, as client-go does (5 to 10 minutes).
    const timeoutSeconds = this.opts.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300);
    const started = Date.now();
    let events = 0;
    try {
      const stream = this.client.watch(
        this.resource,
        this.opts.namespace ?? '',
        {
          resourceVersion: this.resourceVersion,
          allowWatchBookmarks: true,
          labelSelector: this.opts.labelSelector,
          fieldSelector: this.opts.fieldSelector,
          timeoutSeconds,
        },
        ac.signal,
      );
      for await (const event of stream) {
        if (this.stopped) return 'rewatch';
        events++;
        const rv = event.object.metadata?.resourceVersion;
        switch (event.type) {
          case 'ERROR': {
            const status = event.object as unknown as Status;
            if (isPlainObject(status) && status.code === 410) return 'relist';
            throw new ApiError(status.code ?? 500, status.reason ?? 'InternalError', status.message ?? 'watch error', status.details);
          }
          case 'BOOKMARK':
            break;
          case 'ADDED':
          case 'MODIFIED':
            this.upsert(keyOf(event.object), this.held(event.object));
            break;
          case 'DELETED': {
            const key = keyOf(event.object);
            this.remove(key);
            this.emit('onDelete', this.held(event.object));
            break;
          }
        }
        if (rv) this.resourceVersion = rv;
      }
    } catch (err) {
      if (this.stopped) return 'rewatch';
      if (isApiError(err) && err.code === 410) return 'relist';
      throw err;
    } finally {
      this.stopController.signal.removeEventListener('abort', onStop);
      abortController(ac);
    }
    // A stream that ends at once, empty, points at a problem: slow down before resuming.
    if (events === 0 && Date.now() - started < 1000 && !this.stopped) await this.sleep(this.opts.backoff?.initialMs ?? 1000);
    return 'rewatch';
  }
}
