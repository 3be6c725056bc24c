// The subresources a stored kind's Store serves itself, built from the kind's declarations
// (Kubernetes' StatusREST and the part-writing subresources), and the installation of the
// ones served by handlers the server provides (binding, eviction, token, connect).
import type { KubeObject } from '../apimachinery/types.js';
import type {
  GetOptions,
  PartUpdate,
  RequestContext,
  ResourceDefinition,
  ResourceHandler,
  RESTStore,
  ResourceTable,
  SubresourceDefinition,
  SubresourceHandler,
  SubresourceHandlerFactory,
  SubresourceStore,
  UpdatedObjectInfo,
  UpdateOptions,
  UpdateResult,
} from '../rest/index.js';
import { ScaleREST } from './scale.js';
import type { GenericStore, WriteEndpoint } from './store.js';

/** Reads and writes through the Store with the endpoint's rules; get answers the whole object. */
class ObjectPartREST implements SubresourceStore {
  readonly resource: ResourceDefinition;

  constructor(
    private readonly store: GenericStore,
    readonly definition: SubresourceDefinition,
    private readonly endpoint: WriteEndpoint,
  ) {
    this.resource = store.definition;
  }

  get(ctx: RequestContext, namespace: string, name: string, opts: GetOptions): Promise<KubeObject> {
    return this.store.get(ctx, namespace, name, opts);
  }

  update(ctx: RequestContext, namespace: string, name: string, objInfo: UpdatedObjectInfo, opts: UpdateOptions): Promise<UpdateResult> {
    return this.store.updateThrough(this.endpoint, ctx, namespace, name, objInfo, opts);
  }
}

/** `status`: everything but the status is kept, and no manager owns the spec through it. */
function statusREST(store: GenericStore, definition: SubresourceDefinition): SubresourceStore {
  const strategy = strategyOf(store);
  return new ObjectPartREST(store, definition, {
    subresource: definition,
    prepareForUpdate: (obj, old, now) => strategy.prepareForStatusUpdate(obj, old, now),
    validateUpdate: strategy.validateStatusUpdate ? (obj, old) => strategy.validateStatusUpdate!(obj, old) : (obj, old) => strategy.validateUpdate(obj, old),
    resetFields: ['spec'],
  });
}

/** A subresource that writes one part of the object (`ephemeralcontainers`, `finalize`, `approval`). */
function partREST(store: GenericStore, definition: SubresourceDefinition, part: PartUpdate): SubresourceStore {
  const strategy = strategyOf(store);
  return new ObjectPartREST(store, definition, {
    subresource: definition,
    prepareForUpdate: (obj, old, now) => part.prepareForUpdate(obj, old, now),
    validateUpdate: part.validateUpdate ? (obj, old) => part.validateUpdate!(obj, old) : (obj, old) => strategy.validateUpdate(obj, old),
    resetFields: store.objectEndpoint.resetFields,
  });
}

function strategyOf(store: GenericStore): NonNullable<ResourceDefinition['strategy']> {
  const strategy = store.definition.strategy;
  if (!strategy) throw new Error(`${store.definition.resource}: a stored kind has a strategy`);
  return strategy;
}

/** The stores of the subresources `store` serves itself, as its definition declares them. */
export function storesOfSubresources(store: GenericStore): SubresourceStore[] {
  const out: SubresourceStore[] = [];
  for (const sub of store.definition.subresources) {
    const serving = sub.serving;
    if (serving.by === 'status') out.push(statusREST(store, sub));
    else if (serving.by === 'scale') out.push(new ScaleREST(store, sub));
    else if (serving.by === 'part') out.push(partREST(store, sub, serving.part));
  }
  return out;
}

/** Serves each of `definitions` declared as served by `handler` with the store `build` makes for it. */
export function serveResourceHandler(table: ResourceTable, definitions: readonly ResourceDefinition[], handler: ResourceHandler, build: (definition: ResourceDefinition) => RESTStore): RESTStore[] {
  const stores = definitions.filter((d) => d.handler === handler).map(build);
  for (const store of stores) table.add(store);
  return stores;
}

/**
 * Serves, for every resource in `table` that declares a subresource served by `handler`, the
 * store `build` makes for it. Answers the stores installed.
 */
export function serveSubresourceHandler(table: ResourceTable, handler: SubresourceHandler, build: SubresourceHandlerFactory): SubresourceStore[] {
  const installed: SubresourceStore[] = [];
  for (const store of table.all()) {
    for (const sub of store.definition.subresources) {
      if (sub.serving.by !== 'handler' || sub.serving.handler !== handler) continue;
      const built = build(store, sub);
      table.addSubresource(built);
      installed.push(built);
    }
  }
  return installed;
}
