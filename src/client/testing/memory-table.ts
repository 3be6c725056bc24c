// A small in-memory resource table for the tests of the client, the controllers and
// admission: enough of the generic store's behaviour (resource versions, optimistic
// concurrency, finalizers, watch with history and expiry, namespace finalize and status)
// to drive them without the real registry. Not used by the server.
import { randomUUID } from 'node:crypto';
import { ApiError, alreadyExists, conflict, notFound, resourceExpired } from '../../apimachinery/errors.js';
import type { GroupVersion, KubeList, KubeObject, WatchEvent } from '../../apimachinery/types.js';
import { namespaceFinalizer } from '../../naming/index.js';
import type {
  CreateOptions,
  DeleteOptions,
  DeleteResult,
  ListOptions,
  RequestContext,
  ResourceDefinition,
  RESTStore,
  ResourceTable,
  UpdatedObjectInfo,
  UpdateOptions,
  UpdateResult,
} from '../../rest/index.js';

/** The revision counter shared by all stores of one table, as one storage would. */
class Clock {
  revision = 1;
  next(): number {
    return ++this.revision;
  }
}

interface LoggedEvent {
  revision: number;
  event: WatchEvent;
}

export function definition(
  group: string,
  version: string,
  resource: string,
  kind: string,
  namespaced: boolean,
  extra: Partial<ResourceDefinition> = {},
): ResourceDefinition {
  return {
    group,
    version,
    resource,
    kind,
    singularName: kind.toLowerCase(),
    namespaced,
    shortNames: [],
    categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    preferred: true,
    storage: { group, resource, version },
    ...extra,
  };
}

const clone = <T>(v: T): T => structuredClone(v);

export class MemoryStore implements RESTStore {
  private readonly objects = new Map<string, KubeObject>();
  private readonly log: LoggedEvent[] = [];
  private readonly listeners = new Set<{ push: (e: LoggedEvent) => void; end: () => void }>();
  /** Events at or below this revision are forgotten (a watch from before it gets 410). */
  private compactedThrough = 0;
  /** Counts calls per verb, for tests that check what a client did. */
  readonly calls: Record<string, number> = {};

  constructor(
    readonly definition: ResourceDefinition,
    private readonly clock: Clock,
  ) {}

  private count(verb: string): void {
    this.calls[verb] = (this.calls[verb] ?? 0) + 1;
  }

  private get qualified(): { group: string; resource: string } {
    return { group: this.definition.group, resource: this.definition.resource };
  }

  private key(namespace: string, name: string): string {
    return this.definition.namespaced ? `${namespace}/${name}` : name;
  }

  private isNamespace(): boolean {
    return this.definition.group === '' && this.definition.resource === 'namespaces';
  }

  private record(type: WatchEvent['type'], obj: KubeObject, revision: number): void {
    const entry = { revision, event: { type, object: clone(obj) } };
    this.log.push(entry);
    for (const l of this.listeners) l.push(entry);
  }

  /** Drops all history: watches from any earlier revision now fail with 410. */
  compact(): void {
    this.compactedThrough = this.clock.revision;
    this.log.length = 0;
  }

  /** Number of open watches (tests wait for an informer to be watching). */
  watcherCount(): number {
    return this.listeners.size;
  }

  async get(_ctx: RequestContext, namespace: string, name: string): Promise<KubeObject> {
    this.count('get');
    const obj = this.objects.get(this.key(namespace, name));
    if (!obj) throw notFound(this.qualified, name);
    return clone(obj);
  }

  private matching(namespace: string, opts: ListOptions): KubeObject[] {
    const selector = parseEqualitySelector(opts.labelSelector);
    const fields = parseEqualitySelector(opts.fieldSelector);
    return [...this.objects.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, o]) => o)
      .filter((o) => !namespace || o.metadata?.namespace === namespace)
      .filter((o) => Object.entries(selector).every(([k, v]) => o.metadata?.labels?.[k] === v))
      .filter((o) =>
        Object.entries(fields).every(([k, v]) =>
          k === 'metadata.name' ? o.metadata?.name === v : k === 'metadata.namespace' ? o.metadata?.namespace === v : false,
        ),
      );
  }

  async list(_ctx: RequestContext, namespace: string, opts: ListOptions): Promise<KubeList> {
    this.count('list');
    const all = this.matching(namespace, opts);
    const offset = opts.continue ? Number(opts.continue) : 0;
    const end = opts.limit ? offset + opts.limit : all.length;
    const items = all.slice(offset, end).map(clone);
    const metadata: KubeList['metadata'] = { resourceVersion: String(this.clock.revision) };
    if (end < all.length) metadata.continue = String(end);
    return { apiVersion: this.apiVersion(), kind: `${this.definition.kind}List`, metadata, items };
  }

  private apiVersion(): string {
    return this.definition.group ? `${this.definition.group}/${this.definition.version}` : this.definition.version;
  }

  async watch(ctx: RequestContext, namespace: string, opts: ListOptions): Promise<AsyncIterable<WatchEvent>> {
    this.count('watch');
    const from = opts.resourceVersion && opts.resourceVersion !== '0' ? Number(opts.resourceVersion) : undefined;
    if (from !== undefined && from < this.compactedThrough) {
      throw resourceExpired(`too old resource version: ${from} (${this.compactedThrough})`);
    }
    const queue: WatchEvent[] = [];
    let wake: (() => void) | undefined;
    const inScope = (o: KubeObject): boolean => !namespace || o.metadata?.namespace === namespace;
    if (from === undefined) {
      for (const o of this.matching(namespace, opts)) queue.push({ type: 'ADDED', object: clone(o) });
    } else {
      for (const e of this.log) if (e.revision > from && inScope(e.event.object)) queue.push(clone(e.event));
    }
    let ended = false;
    const listener = {
      push: (e: LoggedEvent): void => {
        if (!inScope(e.event.object)) return;
        queue.push(clone(e.event));
        wake?.();
      },
      end: (): void => {
        ended = true;
        wake?.();
      },
    };
    this.listeners.add(listener);
    const listeners = this.listeners;
    const signal = ctx.signal;
    const onAbort = (): void => wake?.();
    signal.addEventListener('abort', onAbort);
    async function* events(): AsyncIterable<WatchEvent> {
      try {
        while (!signal.aborted) {
          const next = queue.shift();
          if (next) {
            yield next;
            continue;
          }
          if (ended) return;
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      } finally {
        listeners.delete(listener);
        signal.removeEventListener('abort', onAbort);
      }
    }
    return events();
  }

  /** Ends every open watch (as a server restart or a broken connection would). */
  breakWatches(): void {
    for (const l of [...this.listeners]) {
      this.listeners.delete(l);
      l.end();
    }
  }

  async create(_ctx: RequestContext, namespace: string, obj: KubeObject, opts: CreateOptions): Promise<KubeObject> {
    this.count('create');
    const o = clone(obj);
    const meta = (o.metadata ??= {});
    if (!meta.name && meta.generateName) meta.name = meta.generateName + randomUUID().slice(0, 5);
    if (!meta.name) throw new ApiError(422, 'Invalid', 'name or generateName is required');
    if (this.definition.namespaced) meta.namespace = namespace;
    const key = this.key(namespace, meta.name);
    if (this.objects.has(key)) throw alreadyExists(this.qualified, meta.name);
    if (this.isNamespace()) {
      o.spec = { finalizers: [namespaceFinalizer()], ...(o.spec as object | undefined) };
      o.status = { phase: 'Active' };
    }
    await opts.validate?.(o, undefined);
    if (opts.dryRun) return o;
    meta.uid = randomUUID();
    meta.creationTimestamp = new Date().toISOString();
    const rev = this.clock.next();
    meta.resourceVersion = String(rev);
    o.apiVersion = this.apiVersion();
    o.kind = this.definition.kind;
    this.objects.set(key, o);
    this.record('ADDED', o, rev);
    return clone(o);
  }

  async update(
    _ctx: RequestContext,
    namespace: string,
    name: string,
    objInfo: UpdatedObjectInfo,
    opts: UpdateOptions,
    subresource?: string,
  ): Promise<UpdateResult> {
    this.count(subresource ? `update/${subresource}` : 'update');
    const key = this.key(namespace, name);
    const current = this.objects.get(key);
    if (!current) throw notFound(this.qualified, name);
    const proposed = await objInfo(clone(current));
    const rv = proposed.metadata?.resourceVersion;
    if (rv && rv !== current.metadata?.resourceVersion) throw conflict(this.qualified, name);
    let next: KubeObject;
    if (subresource === 'status') next = { ...clone(current), status: clone(proposed.status) };
    else if (subresource === 'finalize') {
      const spec = (proposed.spec ?? {}) as Record<string, unknown>;
      next = { ...clone(current), spec: { ...(current.spec as object), finalizers: spec.finalizers ?? [] } };
    } else {
      next = { ...clone(proposed), metadata: { ...clone(proposed.metadata), uid: current.metadata?.uid, creationTimestamp: current.metadata?.creationTimestamp } };
      if (current.metadata?.deletionTimestamp) next.metadata!.deletionTimestamp = current.metadata.deletionTimestamp;
      if (this.isNamespace()) next.status = clone(current.status);
    }
    await opts.validate?.(next, current);
    if (opts.dryRun) return { object: next, created: false };
    const rev = this.clock.next();
    next.metadata!.resourceVersion = String(rev);
    if (next.metadata?.deletionTimestamp && this.finalizersOf(next).length === 0) {
      this.objects.delete(key);
      this.record('DELETED', next, rev);
      return { object: clone(next), created: false };
    }
    this.objects.set(key, next);
    this.record('MODIFIED', next, rev);
    return { object: clone(next), created: false };
  }

  private finalizersOf(o: KubeObject): string[] {
    const own = o.metadata?.finalizers ?? [];
    const spec = this.isNamespace() ? (((o.spec as { finalizers?: string[] } | undefined)?.finalizers) ?? []) : [];
    return [...own, ...spec];
  }

  async delete(_ctx: RequestContext, namespace: string, name: string, opts: DeleteOptions): Promise<DeleteResult> {
    this.count('delete');
    const key = this.key(namespace, name);
    const current = this.objects.get(key);
    if (!current) throw notFound(this.qualified, name);
    await opts.validate?.(current, undefined);
    if (opts.dryRun) return { object: clone(current), deleted: true };
    const rev = this.clock.next();
    if (this.finalizersOf(current).length > 0) {
      if (current.metadata?.deletionTimestamp) return { object: clone(current), deleted: false };
      const next = clone(current);
      next.metadata!.deletionTimestamp = new Date().toISOString();
      next.metadata!.deletionGracePeriodSeconds = 0;
      next.metadata!.resourceVersion = String(rev);
      if (this.isNamespace()) next.status = { ...(next.status as object), phase: 'Terminating' };
      this.objects.set(key, next);
      this.record('MODIFIED', next, rev);
      return { object: clone(next), deleted: false };
    }
    this.objects.delete(key);
    const gone = clone(current);
    gone.metadata!.resourceVersion = String(rev);
    this.record('DELETED', gone, rev);
    return { object: gone, deleted: true };
  }

  async deleteCollection(ctx: RequestContext, namespace: string, opts: DeleteOptions, listOpts: ListOptions): Promise<KubeList> {
    this.count('deleteCollection');
    const items: KubeObject[] = [];
    for (const o of this.matching(namespace, listOpts)) {
      items.push((await this.delete(ctx, o.metadata?.namespace ?? '', o.metadata!.name!, opts)).object);
    }
    return { apiVersion: this.apiVersion(), kind: `${this.definition.kind}List`, metadata: {}, items };
  }
}

function parseEqualitySelector(selector: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!selector) return out;
  for (const term of selector.split(',')) {
    const [k, v] = term.split(/==?/);
    if (k !== undefined && v !== undefined) out[k.trim()] = v.trim();
  }
  return out;
}

export class MemoryResourceTable implements ResourceTable {
  private readonly clock = new Clock();
  private readonly stores = new Map<string, RESTStore>();
  private readonly listeners = new Set<() => void>();

  private static id(gv: GroupVersion, resource: string): string {
    return `${gv.group}/${gv.version}/${resource}`;
  }

  /** Adds a memory-backed store for the definition and returns it. */
  serve(def: ResourceDefinition): MemoryStore {
    const store = new MemoryStore(def, this.clock);
    this.add(store);
    return store;
  }

  lookup(gv: GroupVersion, resource: string): RESTStore | undefined {
    return this.stores.get(MemoryResourceTable.id(gv, resource));
  }

  all(): RESTStore[] {
    return [...this.stores.values()];
  }

  add(store: RESTStore): void {
    this.stores.set(MemoryResourceTable.id(store.definition, store.definition.resource), store);
    for (const l of this.listeners) l();
  }

  remove(gv: GroupVersion, resource: string): void {
    this.stores.delete(MemoryResourceTable.id(gv, resource));
    for (const l of this.listeners) l();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** A table with namespaces and configmaps (namespaced), as most tests need. */
export function basicTable(): { table: MemoryResourceTable; namespaces: MemoryStore; configmaps: MemoryStore } {
  const table = new MemoryResourceTable();
  const namespaces = table.serve(
    definition('', 'v1', 'namespaces', 'Namespace', false, {
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      subresources: [
        { name: 'finalize', kind: 'Namespace', verbs: ['update'] },
        { name: 'status', kind: 'Namespace', verbs: ['get', 'patch', 'update'] },
      ],
    }),
  );
  const configmaps = table.serve(definition('', 'v1', 'configmaps', 'ConfigMap', true));
  return { table, namespaces, configmaps };
}
