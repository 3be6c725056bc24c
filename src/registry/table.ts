// The resource table: which group-version-resources are served, changing at run time (CRDs,
// runtime config, aggregated APIs). buildResourceTable makes a Store for every stored
// built-in definition, one watch cache per storage prefix shared by the versions that
// share storage; virtual resources (reviews, bindings) are added by their owners.
import type { GroupVersion } from '../apimachinery/types.js';
import type { Cacher, CacherOptions, Storage } from '../storage/index.js';
import { createCacher } from '../storage/index.js';
import type { ObjectCodec } from '../codec/storage.js';
import { resourcePrefix } from './keys.js';
import { NamespaceStore } from './namespaces.js';
import { CertificateSigningRequestStore, isCertificateSigningRequests } from './certificates.js';
import { GenericStore } from './store.js';
import type { RESTStore, ResourceDefinition, ResourceTable } from '../rest/index.js';

function tableKey(gv: GroupVersion, resource: string): string {
  return `${gv.group}/${gv.version}/${resource}`;
}

export class DefaultResourceTable implements ResourceTable {
  private readonly stores = new Map<string, RESTStore>();
  private readonly listeners = new Set<() => void>();
  private readonly cachers: Cacher[];

  constructor(stores: RESTStore[] = [], cachers: Cacher[] = []) {
    for (const s of stores) this.stores.set(tableKey(s.definition, s.definition.resource), s);
    this.cachers = cachers;
  }

  lookup(gv: GroupVersion, resource: string): RESTStore | undefined {
    return this.stores.get(tableKey(gv, resource));
  }

  all(): RESTStore[] {
    return [...this.stores.values()];
  }

  add(store: RESTStore): void {
    this.stores.set(tableKey(store.definition, store.definition.resource), store);
    this.notify();
  }

  remove(gv: GroupVersion, resource: string): void {
    if (this.stores.delete(tableKey(gv, resource))) this.notify();
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
  const stores: RESTStore[] = [];
  for (const def of defs) {
    if (!def.storage || !def.strategy) continue;
    const prefix = resourcePrefix(def.storage);
    let cacher = cachers.get(prefix);
    if (!cacher) {
      cacher = createCacher(storage, prefix, opts.cacherOptions);
      cachers.set(prefix, cacher);
    }
    const storeOpts = { storage, cacher, codec: opts.codec, waitTimeoutMs: opts.waitTimeoutMs, maxObjectSizeBytes: opts.maxObjectSizeBytes, now: opts.now };
    if (def.strategy.namespaceLifecycle) stores.push(new NamespaceStore(def, storeOpts));
    else if (isCertificateSigningRequests(def)) stores.push(new CertificateSigningRequestStore(def, storeOpts));
    else stores.push(new GenericStore(def, storeOpts));
  }
  return new DefaultResourceTable(stores, [...cachers.values()]);
}
