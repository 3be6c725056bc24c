// The in-process client: every call goes straight to the resource table's stores, as one
// fixed user, so controllers and bootstrap code need no HTTP round trip. Calls go through the
// same per-verb operations as the HTTP handlers, so that with an admission chain in-process
// writes obey the same rules as remote ones (mutating before the Store call, validating
// inside it).
import { ApiError, methodNotSupported, notFound } from '../apimachinery/errors.js';
import type { GroupVersionResource, KubeList, KubeObject, UserInfo, WatchEvent } from '../apimachinery/types.js';
import type { AdmissionChain } from '../admission/types.js';
import type { CollectionDeleter } from '../client/extended.js';
import type { ApiClient } from '../client/types.js';
import { applyMergePatch } from '../patch/index.js';
import type { DeleteOptions, ListOptions, RequestContext, RESTStore, ResourceTable, SubresourceStore, WriteRecorder } from '../rest/index.js';
import { createResource } from './handlers/create.js';
import { deleteResource, deleteResources } from './handlers/delete.js';
import { getResource } from './handlers/get.js';
import { listResources } from './handlers/list.js';
import { updateResource } from './handlers/update.js';
import { watchResources } from './handlers/watch.js';
import type { WriteTarget } from './handlers/write.js';
import { deepCopy } from '../apimachinery/copy.js';

export interface LoopbackClientOptions {
  /** Run admission on writes (the server passes its chain; bootstrap code may omit it). */
  admission?: AdmissionChain;
  /** Where successful writes go for the object history (the server's own writes have a history too). */
  history?: WriteRecorder;
}

type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'delete' | 'deleteCollection';
type SubresourceVerb = 'get' | 'create' | 'update';

/** A store and, for a subresource, the subresource's store. */
interface Resolved {
  store: RESTStore;
  subresource?: SubresourceStore;
}

const NEVER = new AbortController().signal;

export class LoopbackClient implements ApiClient, CollectionDeleter {
  constructor(
    private readonly table: ResourceTable,
    private readonly user: UserInfo,
    private readonly options: LoopbackClientOptions = {},
  ) {}

  /** The same table as another user (e.g. a controller's own identity). */
  as(user: UserInfo): LoopbackClient {
    return new LoopbackClient(this.table, user, this.options);
  }

  private ctx(signal: AbortSignal = NEVER): RequestContext {
    return { user: this.user, signal, warnings: [], history: this.options.history };
  }

  private store(r: GroupVersionResource): RESTStore {
    const store = this.table.lookup({ group: r.group, version: r.version }, r.resource);
    if (!store) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    return store;
  }

  /** The store for an API verb, when both the store and its definition offer it. */
  private storeFor(r: GroupVersionResource, verb: Verb, apiVerb: string): RESTStore {
    const store = this.store(r);
    const def = store.definition;
    if (!store[verb] || !def.verbs.includes(apiVerb)) throw methodNotSupported({ group: def.group, resource: def.resource }, apiVerb);
    return store;
  }

  /** The store, or its subresource's store, for an API verb, when it and its definition offer it. */
  private resolve(r: GroupVersionResource, verb: Verb & SubresourceVerb, apiVerb: string, subresource: string | undefined): Resolved {
    if (!subresource) return { store: this.storeFor(r, verb, apiVerb) };
    const store = this.store(r);
    const def = store.definition;
    const sub = this.table.lookupSubresource({ group: r.group, version: r.version }, r.resource, subresource);
    if (!sub?.[verb] || !sub.definition.verbs.includes(apiVerb)) throw methodNotSupported({ group: def.group, resource: def.resource }, apiVerb);
    return { store, subresource: sub };
  }

  private target(resolved: Resolved, ctx: RequestContext, namespace: string, name: string, dryRun: boolean): WriteTarget {
    return { ...resolved, namespace, name, user: this.user, warnings: ctx.warnings, dryRun, dryRunValues: dryRun ? ['All'] : [] };
  }

  async get(r: GroupVersionResource, namespace: string, name: string, subresource?: string): Promise<KubeObject> {
    const { store, subresource: sub } = this.resolve(r, 'get', 'get', subresource);
    return getResource(this.ctx(), store, namespace, name, {}, sub);
  }

  async list(r: GroupVersionResource, namespace: string, opts: Omit<ListOptions, 'allowWatchBookmarks'> = {}): Promise<KubeList> {
    // A list from the watch cache answers without I/O: without a turn of the event loop
    // between pages, informers walking every page of a large store would hold the server's
    // requests (and /readyz) until the last page, as no list over HTTP would. A first page
    // answers at once, so a controller's single-page read does not wait a turn.
    if (opts.continue) await new Promise((resolve) => setImmediate(resolve));
    return listResources(this.ctx(), this.storeFor(r, 'list', 'list'), namespace, opts);
  }

  async *watch(r: GroupVersionResource, namespace: string, opts: ListOptions, signal: AbortSignal): AsyncIterable<WatchEvent> {
    const events = await watchResources(this.ctx(signal), this.storeFor(r, 'watch', 'watch'), namespace, opts);
    for await (const event of events) {
      if (signal.aborted) return;
      yield event;
    }
  }

  async create(
    r: GroupVersionResource,
    namespace: string,
    obj: KubeObject,
    subresource?: { name: string; subresource: string },
  ): Promise<KubeObject> {
    const resolved = this.resolve(r, 'create', 'create', subresource?.subresource);
    const object = deepCopy(obj);
    const ctx = this.ctx();
    // As over HTTP: a generated name is not known yet, so mutating admission sees ''.
    const name = subresource?.name ?? object.metadata?.name ?? '';
    return createResource(this.options.admission, ctx, this.target(resolved, ctx, namespace, name, false), object, { dryRun: false });
  }

  async update(r: GroupVersionResource, namespace: string, obj: KubeObject, subresource?: string): Promise<KubeObject> {
    const name = obj.metadata?.name;
    if (!name) throw new ApiError(400, 'BadRequest', 'name is required');
    return this.write(r, namespace, name, subresource, 'update', () => deepCopy(obj));
  }

  async patch(r: GroupVersionResource, namespace: string, name: string, patch: unknown, subresource?: string): Promise<KubeObject> {
    const store = this.store(r);
    const qualified = { group: store.definition.group, resource: store.definition.resource };
    return this.write(r, namespace, name, subresource, 'patch', (current) => {
      if (!current) throw notFound(qualified, name);
      const patched = applyMergePatch(current, patch);
      if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) {
        throw new ApiError(400, 'BadRequest', 'the patch must be a JSON object');
      }
      return patched as KubeObject;
    });
  }

  private async write(
    r: GroupVersionResource,
    namespace: string,
    name: string,
    subresource: string | undefined,
    apiVerb: 'update' | 'patch',
    compute: (current: KubeObject | undefined) => KubeObject,
  ): Promise<KubeObject> {
    const resolved = this.resolve(r, 'update', apiVerb, subresource);
    const ctx = this.ctx();
    const result = await updateResource(this.options.admission, ctx, this.target(resolved, ctx, namespace, name, false), compute, { dryRun: false }, apiVerb);
    return result.object;
  }

  async delete(r: GroupVersionResource, namespace: string, name: string, opts: Partial<DeleteOptions> = {}): Promise<KubeObject | undefined> {
    const store = this.storeFor(r, 'delete', 'delete');
    const ctx = this.ctx();
    const { validate: _v, ...rest } = opts;
    const dryRun = opts.dryRun ?? false;
    const result = await deleteResource(this.options.admission, ctx, this.target({ store }, ctx, namespace, name, dryRun), { ...rest, dryRun });
    return result.object;
  }

  async deleteCollection(
    r: GroupVersionResource,
    namespace: string,
    opts: Partial<DeleteOptions> = {},
    listOpts: Omit<ListOptions, 'allowWatchBookmarks' | 'continue' | 'limit'> = {},
  ): Promise<void> {
    const store = this.storeFor(r, 'deleteCollection', 'deletecollection');
    const ctx = this.ctx();
    const { validate: _v, ...rest } = opts;
    const dryRun = opts.dryRun ?? false;
    await deleteResources(this.options.admission, ctx, this.target({ store }, ctx, namespace, '', dryRun), { ...rest, dryRun }, listOpts);
  }
}
