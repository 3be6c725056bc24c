// The in-process client: every call goes straight to the resource table's stores, as one
// fixed user, so controllers and bootstrap code need no HTTP round trip. When given an
// admission chain it runs it as the HTTP handlers do (mutating before the store call,
// validating inside it), so in-process writes obey the same rules as remote ones.
import { ApiError, methodNotSupported, notFound } from '../apimachinery/errors.js';
import type { GroupVersionResource, KubeList, KubeObject, UserInfo, WatchEvent } from '../apimachinery/types.js';
import type { AdmissionAttributes, AdmissionChain, AdmissionOperation } from '../admission/types.js';
import type {
  DeleteOptions,
  ListOptions,
  RequestContext,
  RESTStore,
  ResourceTable,
  ValidateObjectFunc,
} from '../rest/index.js';
import type { CollectionDeleter } from './extended.js';
import { applyMergePatch } from '../patch/index.js';
import type { ApiClient } from './types.js';

export interface LoopbackClientOptions {
  /** Run admission on writes (the server passes its chain; bootstrap code may omit it). */
  admission?: AdmissionChain;
}

type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'delete' | 'deleteCollection';

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
    return { user: this.user, signal, warnings: [] };
  }

  private store(r: GroupVersionResource): RESTStore {
    const store = this.table.lookup({ group: r.group, version: r.version }, r.resource);
    if (!store) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    return store;
  }

  /** The store's method for an API verb, when both the store and its definition offer it. */
  private verb<V extends Verb>(store: RESTStore, verb: V, apiVerb: string, subresource?: string): NonNullable<RESTStore[V]> {
    const def = store.definition;
    const verbs = subresource ? def.subresources.find((s) => s.name === subresource)?.verbs : def.verbs;
    const fn = store[verb];
    if (!fn || !verbs?.includes(apiVerb)) throw methodNotSupported({ group: def.group, resource: def.resource }, apiVerb);
    return fn.bind(store) as NonNullable<RESTStore[V]>;
  }

  private attributes(
    store: RESTStore,
    operation: AdmissionOperation,
    namespace: string,
    name: string,
    subresource: string,
    object: KubeObject | undefined,
    oldObject: KubeObject | undefined,
  ): AdmissionAttributes {
    const def = store.definition;
    const sub = subresource ? def.subresources.find((s) => s.name === subresource) : undefined;
    const attrs: AdmissionAttributes = {
      operation,
      kind: { group: sub?.group ?? def.group, version: sub?.version ?? def.version, kind: sub?.kind ?? def.kind },
      resource: { group: def.group, version: def.version, resource: def.resource },
      subresource,
      namespace,
      name,
      user: this.user,
      dryRun: false,
      options: {},
      warnings: [],
    };
    if (object) attrs.object = object;
    if (oldObject) attrs.oldObject = oldObject;
    return attrs;
  }

  /** The validating phase as the store's hook, bound to the request's attributes. */
  private validator(attrs: AdmissionAttributes): ValidateObjectFunc | undefined {
    const chain = this.options.admission;
    if (!chain) return undefined;
    return async (obj, old) => {
      const v: AdmissionAttributes = { ...attrs };
      if (attrs.operation !== 'DELETE') v.object = obj;
      if (old) v.oldObject = old;
      else if (attrs.operation === 'DELETE') v.oldObject = obj;
      await chain.validate(v);
    };
  }

  async get(r: GroupVersionResource, namespace: string, name: string, subresource?: string): Promise<KubeObject> {
    const store = this.store(r);
    return this.verb(store, 'get', 'get', subresource)(this.ctx(), namespace, name, {}, subresource);
  }

  async list(r: GroupVersionResource, namespace: string, opts: Omit<ListOptions, 'allowWatchBookmarks'> = {}): Promise<KubeList> {
    const store = this.store(r);
    return this.verb(store, 'list', 'list')(this.ctx(), namespace, opts);
  }

  async *watch(r: GroupVersionResource, namespace: string, opts: ListOptions, signal: AbortSignal): AsyncIterable<WatchEvent> {
    const store = this.store(r);
    const events = await this.verb(store, 'watch', 'watch')(this.ctx(signal), namespace, opts);
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
    const store = this.store(r);
    const create = this.verb(store, 'create', 'create', subresource?.subresource);
    const object = structuredClone(obj);
    // As in the handlers: a generated name is not known yet, so admission sees ''.
    const name = subresource?.name ?? object.metadata?.name ?? '';
    const attrs = this.attributes(store, 'CREATE', namespace, name, subresource?.subresource ?? '', object, undefined);
    if (this.options.admission) await this.options.admission.admit(attrs);
    return create(
      this.ctx(),
      namespace,
      attrs.object ?? object,
      { dryRun: false, validate: this.validator(attrs) },
      subresource?.name,
      subresource?.subresource,
    );
  }

  async update(r: GroupVersionResource, namespace: string, obj: KubeObject, subresource?: string): Promise<KubeObject> {
    const name = obj.metadata?.name;
    if (!name) throw new ApiError(400, 'BadRequest', 'name is required');
    return this.write(r, namespace, name, subresource, 'update', () => structuredClone(obj));
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
    const store = this.store(r);
    const update = this.verb(store, 'update', apiVerb, subresource);
    const chain = this.options.admission;
    let attrs = this.attributes(store, 'UPDATE', namespace, name, subresource ?? '', undefined, undefined);
    const result = await update(
      this.ctx(),
      namespace,
      name,
      async (current) => {
        const next = compute(current);
        attrs = this.attributes(store, current ? 'UPDATE' : 'CREATE', namespace, name, subresource ?? '', next, current);
        if (chain) await chain.admit(attrs);
        return attrs.object ?? next;
      },
      {
        dryRun: false,
        // The attributes are only known once the store read the current object.
        validate: chain ? (obj, old) => this.validator(attrs)!(obj, old) : undefined,
      },
      subresource,
    );
    return result.object;
  }

  async delete(r: GroupVersionResource, namespace: string, name: string, opts: Partial<DeleteOptions> = {}): Promise<KubeObject | undefined> {
    const store = this.store(r);
    const del = this.verb(store, 'delete', 'delete');
    const attrs = this.attributes(store, 'DELETE', namespace, name, '', undefined, undefined);
    if (this.options.admission) await this.options.admission.admit(attrs);
    const result = await del(this.ctx(), namespace, name, { ...opts, dryRun: opts.dryRun ?? false, validate: this.validator(attrs) });
    return result.object;
  }

  async deleteCollection(
    r: GroupVersionResource,
    namespace: string,
    opts: Partial<DeleteOptions> = {},
    listOpts: Omit<ListOptions, 'allowWatchBookmarks' | 'continue' | 'limit'> = {},
  ): Promise<void> {
    const store = this.store(r);
    const deleteCollection = this.verb(store, 'deleteCollection', 'deletecollection');
    const attrs = this.attributes(store, 'DELETE', namespace, '', '', undefined, undefined);
    if (this.options.admission) await this.options.admission.admit(attrs);
    await deleteCollection(this.ctx(), namespace, { ...opts, dryRun: opts.dryRun ?? false, validate: this.validator(attrs) }, listOpts);
  }
}
