// The services resource: the kind's Store, with cluster IPs and node ports allocated
// around its writes (its subresources are served by the kind's Store as they are). A create or update allocates before the write and gives back what it
// took when the write fails; a completed delete frees what the service held and removes
// its Endpoints, as Kubernetes' service REST does.
import { ApiError } from '../../apimachinery/errors.js';
import type { KubeList, KubeObject, WatchEvent } from '../../apimachinery/types.js';
import type {
  CreateOptions,
  DeleteOptions,
  DeleteResult,
  GetOptions,
  ListOptions,
  RESTStore,
  RequestContext,
  ResourceDefinition,
  Strategy,
  UpdateOptions,
  UpdateResult,
  UpdatedObjectInfo,
} from '../../rest/index.js';
import { generateName } from '../objectmeta.js';
import { deleteEach, type GenericStore } from '../store.js';
import type { AllocationTransaction, ServiceAllocator } from './allocator.js';

function required<T>(verb: T | undefined, name: string): T {
  if (!verb) throw new Error(`services: the wrapped store has no ${name}`);
  return verb;
}

export class ServiceREST implements RESTStore {
  readonly definition: ResourceDefinition;
  private readonly strategy: Strategy | undefined;

  constructor(
    private readonly inner: GenericStore,
    private readonly allocator: ServiceAllocator,
    /** The Endpoints store, whose object of the same name goes with a deleted service. */
    private readonly endpoints?: RESTStore,
  ) {
    this.definition = inner.definition;
    this.strategy = inner.definition.strategy;
  }

  get(ctx: RequestContext, namespace: string, name: string, opts: GetOptions): Promise<KubeObject> {
    return required(this.inner.get, 'get').call(this.inner, ctx, namespace, name, opts);
  }

  list(ctx: RequestContext, namespace: string, opts: ListOptions): Promise<KubeList> {
    return required(this.inner.list, 'list').call(this.inner, ctx, namespace, opts);
  }

  watch(ctx: RequestContext, namespace: string, opts: ListOptions): Promise<AsyncIterable<WatchEvent>> {
    return required(this.inner.watch, 'watch').call(this.inner, ctx, namespace, opts);
  }

  /** The object as the kind's defaults complete it, which allocation reads (type, ports). */
  private defaulted(obj: KubeObject, namespace: string, name?: string): KubeObject {
    const svc = structuredClone(obj);
    this.strategy?.defaults(svc);
    const m = (svc.metadata ??= {});
    if (namespace && !m.namespace) m.namespace = namespace;
    if (name && !m.name) m.name = name;
    return svc;
  }

  async create(ctx: RequestContext, namespace: string, obj: KubeObject, opts: CreateOptions): Promise<KubeObject> {
    const svc = this.defaulted(obj, namespace);
    // The name is fixed before allocating, so that allocation records name their service.
    const m = (svc.metadata ??= {});
    if (!m.name && typeof m.generateName === 'string' && m.generateName) m.name = generateName(m.generateName);
    // Ownership is recorded on the object as the client sent it, before allocation: the
    // addresses and ports the server fills in belong to no manager, as in Kubernetes.
    this.inner.recordOwnership(svc, undefined, opts);
    const txn = await this.allocator.allocateCreate(svc, opts.dryRun);
    try {
      const out = await this.inner.create(ctx, namespace, svc, opts, { ownershipRecorded: true });
      await txn.commit();
      return out;
    } catch (e) {
      await txn.revert();
      throw e;
    }
  }

  async update(ctx: RequestContext, namespace: string, name: string, objInfo: UpdatedObjectInfo, opts: UpdateOptions): Promise<UpdateResult> {
    let txn: AllocationTransaction | undefined;
    const allocating: UpdatedObjectInfo = async (current, applied) => {
      // A retried attempt starts from what the previous one took.
      if (txn) await txn.revert();
      txn = undefined;
      const svc = this.defaulted(await objInfo(current, applied), namespace, name);
      // An apply's ownership came with its merge.
      if (!opts.apply) this.inner.recordOwnership(svc, current, opts);
      txn = current ? await this.allocator.allocateUpdate(svc, current, opts.dryRun) : await this.allocator.allocateCreate(svc, opts.dryRun);
      return svc;
    };
    let result: UpdateResult;
    try {
      result = await this.inner.update(ctx, namespace, name, allocating, opts, { ownershipRecorded: true });
    } catch (e) {
      await (txn as AllocationTransaction | undefined)?.revert();
      throw e;
    }
    await (txn as AllocationTransaction | undefined)?.commit();
    const m = result.object.metadata ?? {};
    // An update that emptied the finalizers of a service being deleted removed it.
    if (!opts.dryRun && m.deletionTimestamp && (m.finalizers ?? []).length === 0) await this.afterDelete(result.object, ctx);
    return result;
  }

  async delete(ctx: RequestContext, namespace: string, name: string, opts: DeleteOptions): Promise<DeleteResult> {
    const result = await required(this.inner.delete, 'delete').call(this.inner, ctx, namespace, name, opts);
    if (result.deleted && !opts.dryRun) await this.afterDelete(result.object, ctx);
    return result;
  }

  async deleteCollection(ctx: RequestContext, namespace: string, opts: DeleteOptions, listOpts: ListOptions): Promise<KubeList> {
    return deleteEach(this, ctx, namespace, opts, listOpts);
  }

  private async afterDelete(svc: KubeObject, ctx?: RequestContext): Promise<void> {
    await this.allocator.releaseAll(svc);
    const m = svc.metadata ?? {};
    if (!this.endpoints?.delete || !ctx || !m.name) return;
    try {
      await this.endpoints.delete(ctx, m.namespace ?? '', m.name, { dryRun: false });
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 404)) throw e;
    }
  }
}
