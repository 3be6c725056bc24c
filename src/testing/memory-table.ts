// The real registry (GenericStore, NamespaceStore, the watch cache) over memory storage, for
// the tests of what runs on a client: informers, controllers, admission plugins. Tests see
// the server's own semantics rather than a stand-in's, and a probe tells them what a client
// asked of one store.
import { builtinResourceDefinitions } from '../apis/definitions.js';
import type { GroupVersionResource } from '../apimachinery/types.js';
import { buildResourceTable, type BuildResourceTableOptions, type DefaultResourceTable } from '../registry/index.js';
import type { ResourceDefinition, RESTStore, ResourceTable, SubresourceStore } from '../rest/index.js';
import { MemoryStorage } from '../storage/index.js';

/** The built-in definitions of core/v1 resources, by resource name. */
export function coreDefinitions(...resources: string[]): ResourceDefinition[] {
  const builtin = builtinResourceDefinitions({ runtimeConfig: '' });
  return resources.map((resource) => {
    const def = builtin.find((d) => d.group === '' && d.version === 'v1' && d.resource === resource);
    if (!def) throw new Error(`no built-in core/v1 resource ${resource}`);
    return def;
  });
}

export interface MemoryTable {
  table: DefaultResourceTable;
  storage: MemoryStorage;
  /** Serves more resources from the same storage, as CRDs do at run time. */
  serve(...definitions: ResourceDefinition[]): void;
  /** Stops the watch caches and closes the storage. */
  close(): Promise<void>;
}

/** A table serving `definitions` (namespaces and configmaps when none are given). */
export function memoryTable(definitions: ResourceDefinition[] = coreDefinitions('namespaces', 'configmaps'), opts: BuildResourceTableOptions = {}): MemoryTable {
  const storage = new MemoryStorage();
  const table = buildResourceTable(definitions, storage, opts);
  const extra: DefaultResourceTable[] = [];
  return {
    table,
    storage,
    serve(...more) {
      const added = buildResourceTable(more, storage, opts);
      extra.push(added);
      for (const store of added.all()) table.add(store, added.subresources(store.definition, store.definition.resource));
    },
    async close() {
      await Promise.all([table, ...extra].map((t) => t.stop()));
      await storage.close();
    },
  };
}

/** What the clients of one store asked of it. */
export interface StoreProbe {
  /** Calls per verb (`update/<subresource>` for subresource updates); absent until made. */
  readonly calls: Record<string, number>;
  /** Watches open now. */
  watcherCount(): number;
  /** Ends every open watch and holds new ones until `resumeWatches` (a connection lost for a while). */
  pauseWatches(): void;
  resumeWatches(): void;
}

/** Puts a probe in front of the table's store of `r` (the store itself is unchanged). */
export function probeStore(table: ResourceTable, r: GroupVersionResource): StoreProbe {
  const store = table.lookup(r, r.resource);
  if (!store) throw new Error(`${r.resource} is not served`);
  const calls: Record<string, number> = {};
  const count = (verb: string): void => {
    calls[verb] = (calls[verb] ?? 0) + 1;
  };
  const open = new Set<AbortController>();
  let held: { promise: Promise<void>; release: () => void } | undefined;

  const watch: RESTStore['watch'] = async (ctx, namespace, opts) => {
    count('watch');
    if (held) await held.promise;
    // The watch runs under a signal of its own, so that a pause can end it.
    const own = new AbortController();
    const forward = (): void => own.abort();
    if (ctx.signal.aborted) own.abort();
    else ctx.signal.addEventListener('abort', forward, { once: true });
    const events = await store.watch!({ ...ctx, signal: own.signal }, namespace, opts);
    open.add(own);
    return (async function* () {
      try {
        yield* events;
      } finally {
        open.delete(own);
        ctx.signal.removeEventListener('abort', forward);
      }
    })();
  };

  const probed = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'watch' && target.watch) return watch;
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || prop === 'constructor') return value;
      return (...args: unknown[]): unknown => {
        count(String(prop));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  // Updates through a subresource count as `update/<subresource>`.
  const subresources = table.subresources(r, r.resource).map((sub): SubresourceStore => {
    if (!sub.update) return sub;
    const update = sub.update.bind(sub);
    return {
      resource: sub.resource,
      definition: sub.definition,
      ...(sub.get ? { get: sub.get.bind(sub) } : {}),
      ...(sub.create ? { create: sub.create.bind(sub) } : {}),
      ...(sub.connect ? { connect: sub.connect.bind(sub) } : {}),
      update: (...args) => {
        count(`update/${sub.definition.name}`);
        return update(...args);
      },
    };
  });
  table.add(probed, subresources);

  return {
    calls,
    watcherCount: () => open.size,
    pauseWatches() {
      if (!held) {
        let release!: () => void;
        const promise = new Promise<void>((resolve) => (release = resolve));
        held = { promise, release };
      }
      for (const c of [...open]) c.abort();
    },
    resumeWatches() {
      held?.release();
      held = undefined;
    },
  };
}
