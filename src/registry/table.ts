// The resource table: which group-version-resources and subresources are served, changing at
// run time (CRDs, runtime config, aggregated APIs). buildResourceTable makes a Store for every
// stored built-in definition, one watch cache per storage prefix shared by the versions that
// share storage, with the subresources the Store serves itself (status, scale, parts of the
// object); virtual resources (reviews, bindings) and the subresources served by handlers
// (binding, eviction, token, connect) are added by their owners (`serveSubresourceHandler`).
import type { GroupVersion } from '../apimachinery/types.js';
import type { Cacher, CacherOptions, Storage } from '../storage/index.js';
import { createCacher } from '../storage/index.js';
import type { ObjectCodec } from '../codec/storage.js';
import { resourcePrefix } from './keys.js';
import { NamespaceStore } from './namespaces.js';
import { GenericStore } from './store.js';
import { storesOfSubresources } from './subresources.js';
import type { RESTStore, ResourceDefinition, ResourceTable, SubresourceStore } from '../rest/index.js';

function tableKey(gv: GroupVersion, resource: string): string {
  return `${gv.group}/${gv.version}/${resource}`;
}

/** A served resource: its store and the stores of its subresources, by name. */
interface Entry {
  store: RESTStore;
  subresources: Map<string, SubresourceStore>;
}

export class DefaultResourceTable implements ResourceTable {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<() => void>();
  private readonly cachers: Cacher[];

  constructor(stores: RESTStore[] = [], cachers: Cacher[] = []) {
    for (const s of stores) this.entries.set(tableKey(s.definition, s.definition.resource), { store: s, subresources: new Map() });
    this.cachers = cachers;
  }

  lookup(gv: GroupVersion, resource: string): RESTStore | undefined {
    return this.entries.get(tableKey(gv, resource))?.store;
  }

  lookupSubresource(gv: GroupVersion, resource: string, subresource: string): SubresourceStore | undefined {
    return this.entries.get(tableKey(gv, resource))?.subresources.get(subresource);
  }

  subresources(gv: GroupVersion, resource: string): SubresourceStore[] {
    const entry = this.entries.get(tableKey(gv, resource));
    if (!entry) return [];
    const out: SubresourceStore[] = [];
    for (const declared of entry.store.definition.subresources) {
      const sub = entry.subresources.get(declared.name);
      if (sub) out.push(sub);
    }
    return out;
  }

  all(): RESTStore[] {
    return [...this.entries.values()].map((e) => e.store);
  }

  add(store: RESTStore, subresources?: SubresourceStore[]): void {
    const key = tableKey(store.definition, store.definition.resource);
    const before = this.entries.get(key);
    const entry: Entry = { store, subresources: new Map() };
    if (subresources) {
      for (const sub of subresources) entry.subresources.set(sub.definition.name, sub);
    } else if (before) {
      const declared = new Set(store.definition.subresources.map((s) => s.name));
      for (const [name, sub] of before.subresources) if (declared.has(name)) entry.subresources.set(name, sub);
    }
    this.entries.set(key, entry);
    this.notify();
  }

  addSubresource(sub: SubresourceStore): void {
    const entry = this.entries.get(tableKey(sub.resource, sub.resource.resource));
    if (!entry) throw new Error(`${sub.resource.resource}/${sub.definition.name}: the resource is not served`);
    entry.subresources.set(sub.definition.name, sub);
    this.notify();
  }

  remove(gv: GroupVersion, resource: string): void {
    if (this.entries.delete(tableKey(gv, resource))) this.notify();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops the watch caches the table started. */
  async stop(): Promise<void> {
    await Promise.all(this.cachers.map((c) => c.stop()));
  }

  private notify(): void {
    for (const l of [...this.listeners]) {
      try {
        l();
      } catch {
        // A failing listener must not keep the others from hearing of the change.
      }
    }
  }
}

/** Every served resource's definition with the subresources the table serves for it (OpenAPI's input). */
export function servedDefinitions(table: ResourceTable): ResourceDefinition[] {
  return table.all().map((s) => {
    const d = s.definition;
    return { ...d, subresources: table.subresources(d, d.resource).map((sub) => sub.definition) };
  });
}

export interface BuildResourceTableOptions {
  cacherOptions?: CacherOptions;
  codec?: ObjectCodec;
  /** How reads wait for a requested resource version (ms). */
  waitTimeoutMs?: number;
  /** Largest encoded object a write may store (etcd's default request limit, 1.5 MiB, when unset). */
  maxObjectSizeBytes?: number;
  /** The stores' clock (creation and deletion times, managed fields). */
  now?: () => Date;
}

export function buildResourceTable(defs: ResourceDefinition[], storage: Storage, opts: BuildResourceTableOptions = {}): DefaultResourceTable {
  const cachers = new Map<string, Cacher>();
  const stores: GenericStore[] = [];
  for (const def of defs) {
    if (!def.storage || !def.strategy) continue;
    const prefix = resourcePrefix(def.storage);
    let cacher = cachers.get(prefix);
    if (!cacher) {
      cacher = createCacher(storage, prefix, opts.cacherOptions);
      cachers.set(prefix, cacher);
    }
    const storeOpts = { storage, cacher, codec: opts.codec, waitTimeoutMs: opts.waitTimeoutMs, maxObjectSizeBytes: opts.maxObjectSizeBytes, now: opts.now };
    stores.push(def.strategy.namespaceLifecycle ? new NamespaceStore(def, storeOpts) : new GenericStore(def, storeOpts));
  }
  const table = new DefaultResourceTable([], [...cachers.values()]);
  for (const store of stores) table.add(store, storesOfSubresources(store));
  return table;
}
