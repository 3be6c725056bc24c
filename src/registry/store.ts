// The generic Store: every verb of a stored kind, once, on top of the kind's Strategy
// (Kubernetes' generic registry Store). It owns the write semantics and writes to the
// revisioned Storage; everything it reads goes through its CacheDelegator, which chooses
// between the resource's shared watch cache and storage. Objects are handled in the storage
// version inside (strategy, validation, admission, storage) and answered in the
// definition's own version.
import { randomUUID } from 'node:crypto';
import type { FieldError, QualifiedResource } from '../apimachinery/errors.js';
import {
  ApiError,
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  notFound,
} from '../apimachinery/errors.js';
import type { FieldSelector } from '../apimachinery/fields.js';
import { parseFieldSelector, unsupportedFields } from '../apimachinery/fields.js';
import type { LabelSelector } from '../apimachinery/labels.js';
import { parseLabelSelector } from '../apimachinery/labels.js';
import type { KubeList, KubeObject, ObjectMeta, UserInfo } from '../apimachinery/types.js';
import { apiVersionOf } from '../apimachinery/types.js';
import type { Cacher, Item, Storage } from '../storage/interface.js';
import type { ObjectCodec } from '../codec/storage.js';
import { encodeForStorage, jsonCodec } from '../codec/storage.js';
import { EventEncodings } from '../codec/encoding-memo.js';
import { withLazyItems } from './list.js';
import { CacheDelegator, type ObjectFilter } from './cache-delegator.js';
import { isKeyExists, isStorageConflict, isStorageNotFound, parseResourceVersion } from './errors.js';
import { fillGoEncodedZeroValues, type FillOptions } from '../schema/index.js';
import { emptyObjectOf, fieldManagerForKind, managerFromUserAgent, type FieldManager } from '../apply/index.js';
import { markDeleting, planDelete, type DeletePlan } from './graceful.js';
import { collectionPrefix, objectKey, resourcePrefix } from './keys.js';
import { dns1123SubdomainName, type NameValidator } from '../apimachinery/names.js';
import { generateName, validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import type {
  CreateOptions,
  DeleteOptions,
  DeleteResult,
  GetAnswer,
  GetOptions,
  ListOptions,
  RESTStore,
  RequestContext,
  AsyncVersionConversion,
  ResourceDefinition,
  Strategy,
  StoreList,
  StoreWatch,
  SubresourceDefinition,
  UpdatedObjectInfo,
  UpdateOptions,
  UpdateResult,
} from '../rest/index.js';
import { validateDeleteOptions, validateListOptions, validateWatchOptions } from './options.js';
import { rfc3339 } from '../apimachinery/time.js';
import { setOwn } from '../apimachinery/own.js';
import { deepCopy } from '../apimachinery/copy.js';

export interface GenericStoreOptions {
  storage: Storage;
  /** The watch cache of this resource's storage prefix, shared by the versions that share it. */
  cacher: Cacher;
  codec?: ObjectCodec;
  /** How long reads wait for the cache to reach a requested resource version (ms). */
  waitTimeoutMs?: number;
  /** Clock, for tests. */
  now?: () => Date;
  /** Largest encoded object a write may store; DEFAULT_MAX_OBJECT_SIZE_BYTES by default. */
  maxObjectSizeBytes?: number;
}

/** etcd's default `--max-request-bytes` (1.5 MiB): what an etcd-backed Kubernetes can store. */
export const DEFAULT_MAX_OBJECT_SIZE_BYTES = 1572864;

/** What kube-apiserver answers when etcd refuses a write as too large: its error text as a 500 without reason. */
export function objectTooLarge(): ApiError {
  const err = new ApiError(500, '', 'etcdserver: request is too large');
  delete err.status.reason;
  return err;
}

/**
 * How a write through one endpoint of the Store changes the stored object: the object itself,
 * or a subresource that writes a part of it (status, scale, `finalize`, ...).
 */
export interface WriteEndpoint {
  /** The subresource written through (its kind is what an apply is read as); absent for the object itself. */
  subresource?: SubresourceDefinition;
  /** Restores from `old` what a write through this endpoint may not change. `now` is the Store's clock. */
  prepareForUpdate(obj: KubeObject, old: KubeObject, now: Date): void;
  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[];
  /** Top-level fields no manager owns through this endpoint (server-side apply's reset fields). */
  resetFields: readonly string[];
}

/** How a write is made, beyond the verb's options. */
export interface StoreWrite {
  /** Who asks (a create records it where the kind wants it: CertificateSigningRequests). */
  requester?: UserInfo;
  /**
   * The object already carries its managedFields: a store wrapping this one recorded them
   * (`recordOwnership`) before filling in what no manager owns (allocated service addresses).
   */
  ownershipRecorded?: boolean;
}

const MAX_UPDATE_ATTEMPTS = 16;
/** How many bytes of encodings of objects read by GET a served resource keeps. */
const GET_ENCODINGS_BUDGET = 8 * 1024 * 1024;
const MAX_NAME_GENERATION_ATTEMPTS = 8;

function clone<T>(value: T): T {
  return deepCopy(value);
}

function meta(obj: KubeObject): ObjectMeta {
  if (obj.metadata === undefined || obj.metadata === null || typeof obj.metadata !== 'object') obj.metadata = {};
  return obj.metadata;
}

/** Everything but metadata and status: a change there bumps `metadata.generation`. */
function specPart(obj: KubeObject): string {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k !== 'metadata' && k !== 'status' && k !== 'apiVersion' && k !== 'kind') setOwn(rest, k, v);
  }
  return canonicalJson(rest);
}

/** JSON with object keys sorted at every level, so that key order is not a change. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  if (typeof value === 'bigint') return value.toString();
  return JSON.stringify(value) ?? 'null';
}

/**
 * Whether a create's resource version is one storage refuses: a decimal that reads as a
 * revision other than 0. "0" and what does not parse as a revision are dropped silently.
 */
function setsResourceVersion(rv: string): boolean {
  return /^\d+$/.test(rv) && BigInt(rv) !== 0n && BigInt(rv) < 2n ** 64n;
}

/** `value` and everything under it made read-only, for a value shared by every write. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

export class GenericStore implements RESTStore {
  readonly definition: ResourceDefinition;
  protected readonly strategy: Strategy;
  protected readonly storage: Storage;
  /** Every read: gets, lists, watches and the current object a write builds on. */
  protected readonly reads: CacheDelegator;
  protected readonly codec: ObjectCodec;
  protected readonly validateName: NameValidator;
  protected readonly now: () => Date;
  private readonly maxObjectSizeBytes: number;
  protected readonly qualified: QualifiedResource;
  protected readonly groupKind: { group: string; kind: string };
  private readonly storageLocation: { group: string; resource: string };
  private readonly servedApiVersion: string;
  private readonly storageApiVersion: string;
  /** Whether the server sets and raises `metadata.generation` for this kind (Strategy.tracksGeneration). */
  private readonly tracksGeneration: boolean;
  private readonly storageKind: { group: string; version: string; kind: string };
  /** Set when the definition converts through a webhook: reads and writes then await it. */
  private readonly asyncConversion?: AsyncVersionConversion;
  /** Writes of the object itself: the strategy's update rules; status is nobody's when the kind has a status subresource. */
  readonly objectEndpoint: WriteEndpoint;
  /** The encodings of recently read objects, for GETs of unchanged objects. */
  private readonly getEncodings = new EventEncodings(GET_ENCODINGS_BUDGET);

  constructor(definition: ResourceDefinition, opts: GenericStoreOptions) {
    if (!definition.storage || !definition.strategy) {
      throw new Error(`${definition.resource}: a generic store needs a definition with storage and strategy`);
    }
    this.definition = definition;
    this.strategy = definition.strategy;
    this.storage = opts.storage;
    this.codec = opts.codec ?? jsonCodec;
    this.validateName = definition.strategy.validateName?.bind(definition.strategy) ?? dns1123SubdomainName;
    this.now = opts.now ?? (() => new Date());
    this.maxObjectSizeBytes = opts.maxObjectSizeBytes ?? DEFAULT_MAX_OBJECT_SIZE_BYTES;
    this.qualified = { group: definition.group, resource: definition.resource };
    this.groupKind = { group: definition.group, kind: definition.kind };
    this.storageLocation = { group: definition.storage.group, resource: definition.storage.resource };
    this.servedApiVersion = apiVersionOf(definition);
    this.storageApiVersion = apiVersionOf({ group: definition.storage.group, version: definition.storage.version });
    this.tracksGeneration = definition.strategy.tracksGeneration === true;
    this.storageKind = { group: definition.storage.group, version: definition.storage.version, kind: definition.kind };
    this.asyncConversion = definition.conversion?.async;
    const strategy = definition.strategy;
    this.objectEndpoint = {
      prepareForUpdate: (obj, old) => strategy.prepareForUpdate(obj, old),
      validateUpdate: (obj, old) => strategy.validateUpdate(obj, old),
      resetFields: strategy.hasStatus ? ['status'] : [],
    };
    const bookmark = (revision: number): KubeObject => ({ apiVersion: this.servedApiVersion, kind: this.definition.kind, metadata: { resourceVersion: String(revision) } });
    const asyncConversion = this.asyncConversion;
    this.reads = new CacheDelegator({
      storage: opts.storage,
      cacher: opts.cacher,
      view: asyncConversion
        ? {
            decode: (item) => this.decode(item),
            // Left in the storage version; `convert` answers a whole page in one call.
            toExternal: (obj, revision) => {
              meta(obj).resourceVersion = String(revision);
              return obj;
            },
            convert: async (objs) => (await asyncConversion.fromStorageAll(objs)).map((o) => this.shape(o, o.metadata?.resourceVersion ?? '')),
            bookmark,
          }
        : {
            decode: (item) => this.decode(item),
            toExternal: (obj, revision) => this.toExternal(obj, revision),
            bookmark,
          },
      resourcePrefix: resourcePrefix(this.storageLocation),
      groupKind: this.groupKind,
      qualified: this.qualified,
      waitTimeoutMs: opts.waitTimeoutMs,
    });
  }

  // -------------------------------------------------------------------------------------
  // Keys, versions and conversion

  protected key(namespace: string, name: string): string {
    // Names and namespaces are single key segments; anything else names no object.
    if (!name || name.includes('/') || namespace.includes('/')) throw notFound(this.qualified, name);
    if (this.definition.namespaced && !namespace) throw badRequest('Namespace parameter required.');
    return objectKey(this.definition, this.storageLocation, this.definition.namespaced ? namespace : '', name);
  }

  /** A request object in the storage version (already-converted objects pass through). */
  protected toInternal(obj: KubeObject): KubeObject {
    const copy = clone(obj);
    const conversion = this.definition.conversion;
    if (conversion && copy.apiVersion !== this.storageApiVersion) return conversion.toStorage(copy);
    if (!conversion) {
      copy.apiVersion = this.servedApiVersion;
      copy.kind = this.definition.kind;
    }
    return copy;
  }

  /** A stored object as answered: the definition's version, with its resource version. */
  protected toExternal(internal: KubeObject, resourceVersion: number | string): KubeObject {
    return this.shape(this.definition.conversion ? this.definition.conversion.fromStorage(internal) : internal, resourceVersion);
  }

  /** A request object in the storage version, waiting for a conversion webhook when there is one. */
  async requestToInternal(obj: KubeObject): Promise<KubeObject> {
    const webhook = this.asyncConversion;
    if (!webhook) return this.toInternal(obj);
    const copy = clone(obj);
    if (!copy.apiVersion) copy.apiVersion = this.servedApiVersion;
    if (!copy.kind) copy.kind = this.definition.kind;
    return copy.apiVersion === this.storageApiVersion ? copy : webhook.toStorage(copy);
  }

  /** `toExternal`, waiting for a conversion webhook when there is one. */
  protected async answerOf(internal: KubeObject, resourceVersion: number | string): Promise<KubeObject> {
    const webhook = this.asyncConversion;
    if (!webhook) return this.toExternal(internal, resourceVersion);
    const sent: KubeObject = { ...internal, metadata: { ...meta(internal) } };
    if (resourceVersion === '') delete sent.metadata?.resourceVersion;
    else meta(sent).resourceVersion = String(resourceVersion);
    return this.shape(await webhook.fromStorage(sent), resourceVersion);
  }

  /**
   * Runs a write and answers `internal` as stored by it. A conversion webhook is asked
   * before the write, so a webhook that fails leaves storage as it was.
   */
  private async storedAnswer(internal: KubeObject, write: () => Promise<Item>): Promise<KubeObject> {
    if (!this.asyncConversion) return this.itemToExternal(await write());
    const answer = await this.answerOf(internal, '');
    meta(answer).resourceVersion = String((await write()).modRevision);
    return answer;
  }

  /** As storedAnswer, for writes that answer `internal` at the revision they return (removals). */
  private async answerAround(internal: KubeObject, write: () => Promise<number>): Promise<KubeObject> {
    if (!this.asyncConversion) return this.toExternal(internal, await write());
    const answer = await this.answerOf(internal, '');
    meta(answer).resourceVersion = String(await write());
    return answer;
  }

  /** A converted object in the served version's shape, with its resource version. */
  private shape(converted: KubeObject, resourceVersion: number | string): KubeObject {
    // Field order as Kubernetes writes objects: type, metadata, the kind's fields, status.
    const { apiVersion: _a, kind: _k, metadata, status, ...rest } = converted;
    const out: KubeObject = { apiVersion: this.servedApiVersion, kind: this.definition.kind, metadata: metadata ?? {}, ...rest };
    if (status !== undefined) out.status = status;
    meta(out).resourceVersion = String(resourceVersion);
    return out;
  }

  protected decode(item: Item): KubeObject {
    const obj = this.codec.decode(item.value);
    meta(obj).resourceVersion = String(item.modRevision);
    return obj;
  }

  /** A would-be new object: never stored, so without a resource version. */
  /** The storage bytes of an object, refused as etcd would refuse them when too large. */
  private encodeChecked(obj: KubeObject): Uint8Array {
    const bytes = encodeForStorage(this.codec, obj);
    this.checkSize(bytes);
    return bytes;
  }

  private checkSize(bytes: Uint8Array): void {
    if (bytes.byteLength > this.maxObjectSizeBytes) throw objectTooLarge();
  }

  /**
   * Refuses a request object that is already over the size limit before any defaulting,
   * validation or field tracking: that work is linear in the object with large constants
   * and would end in the same refusal. One encode is cheap next to it. When the stored
   * object itself is over the limit (written under a larger one), an unchanged write must
   * still pass, so the check is left to the end.
   */
  private refuseOversized(obj: KubeObject, stored?: Item): void {
    if (stored && stored.value.byteLength > this.maxObjectSizeBytes) return;
    // Most objects are far below the limit, which a walk without encoding proves.
    if ((this.codec.sizeBound?.(obj, this.maxObjectSizeBytes) ?? Infinity) <= this.maxObjectSizeBytes) return;
    this.checkSize(encodeForStorage(this.codec, obj));
  }

  protected async dryRunExternal(internal: KubeObject): Promise<KubeObject> {
    const out = await this.answerOf(internal, '');
    delete out.metadata?.resourceVersion;
    return out;
  }

  protected itemToExternal(item: Item): KubeObject {
    return this.toExternal(this.decode(item), item.modRevision);
  }

  protected nameOf(obj: KubeObject): string {
    return obj.metadata?.name ?? '';
  }

  // -------------------------------------------------------------------------------------
  // Reads (answered by the CacheDelegator; the Store checks the request and names the kind)

  async get(ctx: RequestContext, namespace: string, name: string, opts: GetOptions): Promise<KubeObject> {
    const item = await this.reads.get(this.key(namespace, name), opts.resourceVersion ?? '', name);
    if (!item) throw notFound(this.qualified, name);
    return this.asyncConversion ? this.answerOf(this.decode(item), item.modRevision) : this.itemToExternal(item);
  }

  async getAnswer(ctx: RequestContext, namespace: string, name: string, opts: GetOptions): Promise<GetAnswer> {
    if (this.asyncConversion) {
      const object = await this.get(ctx, namespace, name, opts);
      return { build: () => object };
    }
    const { item, cached } = await this.reads.read(this.key(namespace, name), opts.resourceVersion ?? '', name);
    if (!item) throw notFound(this.qualified, name);
    const build = (): KubeObject => this.itemToExternal(item);
    return cached ? { build, shared: { source: item, encodings: this.getEncodings } } : { build };
  }

  async list(ctx: RequestContext, namespace: string, opts: ListOptions): Promise<StoreList> {
    validateListOptions(opts);
    const filter = this.selectionFilter(opts);
    const prefix = collectionPrefix(this.definition, this.storageLocation, namespace);
    const page = await this.reads.list(prefix, opts, filter);
    const head = { apiVersion: this.servedApiVersion, kind: `${this.definition.kind}List`, metadata: page.metadata };
    // Items produced on demand stay so: reading `page.items` would build them all.
    return page.lazy ? withLazyItems(head, page.lazy) : { ...head, items: page.items };
  }

  async watch(ctx: RequestContext, namespace: string, opts: ListOptions): Promise<StoreWatch> {
    validateWatchOptions(opts);
    const filter = this.selectionFilter(opts);
    const prefix = collectionPrefix(this.definition, this.storageLocation, namespace);
    return this.reads.watch(
      prefix,
      { resourceVersion: opts.resourceVersion, timeoutSeconds: opts.timeoutSeconds, allowWatchBookmarks: opts.allowWatchBookmarks, signal: ctx.signal },
      filter,
    );
  }

  /** The label and field selector of a list or watch as one predicate over stored objects. */
  protected selectionFilter(opts: ListOptions): ObjectFilter | undefined {
    const labels: LabelSelector | undefined = opts.labelSelector ? parseLabelSelector(opts.labelSelector) : undefined;
    const fields: FieldSelector | undefined = opts.fieldSelector ? parseFieldSelector(opts.fieldSelector) : undefined;
    if (fields) {
      const extra = this.strategy.fieldSelectorKeys;
      const unknown = unsupportedFields(fields, ['metadata.name', 'metadata.namespace', ...extra]);
      if (unknown.length > 0) {
        throw badRequest(
          extra.length === 0
            ? `${JSON.stringify(unknown[0])} is not a known field selector: only "metadata.name", "metadata.namespace"`
            : `field label not supported: ${unknown[0]}`,
        );
      }
    }
    const useLabels = labels && !labels.empty ? labels : undefined;
    const useFields = fields && !fields.empty ? fields : undefined;
    if (!useLabels && !useFields) return undefined;
    const filter = (obj: KubeObject): boolean => {
      if (useLabels && !useLabels.matches(obj.metadata?.labels)) return false;
      if (useFields && !useFields.matches(this.fieldsOf(obj))) return false;
      return true;
    };
    // An object's key ends in its name (names hold no `/`): a name selector is answered from
    // the keys, and only the object of that name is decoded (an informer of one name in every
    // namespace, such as the root CA publisher's, among a million objects).
    const name = useFields?.requiresExactMatch('metadata.name');
    if (name === undefined) return filter;
    const suffix = `/${name}`;
    return Object.assign(filter, { keyMayMatch: (key: string) => key.endsWith(suffix) });
  }

  protected fieldsOf(obj: KubeObject): Record<string, string> {
    const m = obj.metadata ?? {};
    const base: Record<string, string> = { 'metadata.name': m.name ?? '' };
    if (this.definition.namespaced) base['metadata.namespace'] = m.namespace ?? '';
    return { ...base, ...this.strategy.selectableFields(obj) };
  }

  // -------------------------------------------------------------------------------------
  // Create

  async create(ctx: RequestContext, namespace: string, obj: KubeObject, opts: CreateOptions, write: StoreWrite = {}): Promise<KubeObject> {
    const internal = await this.requestToInternal(obj);
    const m = meta(internal);
    if (m.resourceVersion && setsResourceVersion(m.resourceVersion)) {
      // Kubernetes' storage refuses this before writing with a plain error, which reaches the
      // client as a 500 with the bare text and no reason.
      const err = new ApiError(500, '', 'resourceVersion should not be set on objects to be created');
      delete err.status.reason;
      throw err;
    }
    this.applyRequestNamespace(m, namespace);
    this.refuseOversized(internal);
    const generated = !m.name && !!m.generateName;
    for (let attempt = 0; ; attempt++) {
      if (generated) m.name = generateName(m.generateName as string);
      // Only a generated name can make another attempt, which must start from the request again.
      const prepared = await this.prepareCreate(generated ? clone(internal) : internal, opts, { requester: ctx.user, ...write });
      const key = this.key(prepared.metadata?.namespace ?? '', this.nameOf(prepared));
      if (opts.dryRun) {
        this.encodeChecked(prepared);
        const existing = await this.reads.get(key);
        if (existing) throw this.alreadyExistsAs(existing, this.nameOf(prepared));
        return this.dryRunExternal(prepared);
      }
      try {
        return await this.storedAnswer(prepared, () => this.storage.create(key, this.encodeChecked(prepared)));
      } catch (e) {
        if (!isKeyExists(e)) throw e;
        if (!generated || attempt + 1 >= MAX_NAME_GENERATION_ATTEMPTS) {
          const existing = await this.reads.get(key);
          throw existing ? this.alreadyExistsAs(existing, this.nameOf(prepared)) : alreadyExists(this.qualified, this.nameOf(prepared));
        }
      }
    }
  }

  /** 409 for a name in use; Kubernetes says so differently while the holder is being deleted. */
  private alreadyExistsAs(existing: Item, name: string): ApiError {
    const err = alreadyExists(this.qualified, name);
    if (!this.decode(existing).metadata?.deletionTimestamp) return err;
    return new ApiError(err.code, err.reason, `object is being deleted: ${err.status.message ?? ''}`, err.status.details);
  }

  /** Namespace from the request path; the body may repeat it but not contradict it. */
  protected applyRequestNamespace(m: ObjectMeta, namespace: string): void {
    if (!this.definition.namespaced) {
      delete m.namespace;
      return;
    }
    if (m.namespace && namespace && m.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    if (namespace) m.namespace = namespace;
  }

  /** Sets what the server owns, runs the strategy, validates and admits the new object. */
  protected async prepareCreate(obj: KubeObject, opts: CreateOptions, write: StoreWrite): Promise<KubeObject> {
    const m = meta(obj);
    m.uid = randomUUID();
    m.creationTimestamp = rfc3339(this.now());
    if (this.tracksGeneration) m.generation = 1;
    delete m.resourceVersion;
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    delete m.selfLink;
    this.strategy.defaults(obj);
    this.strategy.prepareForCreate(obj, write.requester);
    this.afterPrepareForCreate(obj);
    this.fillGoZeroValues(obj);
    // ObjectMeta is checked here for every kind, with the kind's name rule; the strategy checks the rest.
    const errs = [...validateObjectMeta(meta(obj), this.definition.namespaced, this.validateName), ...this.strategy.validate(obj)];
    if (errs.length > 0) throw invalid(this.groupKind, this.nameOf(obj), errs);
    this.fillGoZeroValues(obj, { scalars: true });
    this.trackManagedFields(obj, undefined, opts, this.objectEndpoint, write);
    if (opts.validate) await opts.validate(obj, undefined);
    return obj;
  }

  /**
   * Records in `metadata.managedFields` which manager set which fields: the request's
   * `fieldManager`, else the one its User-Agent names. Server-side apply computes them itself.
   */
  private trackManagedFields(obj: KubeObject, old: KubeObject | undefined, opts: CreateOptions & Pick<UpdateOptions, 'apply'>, endpoint: WriteEndpoint, write: StoreWrite): void {
    // An apply's ownership was computed with its merge (withApply).
    if (write.ownershipRecorded || opts.apply) return;
    this.recordOwnership(obj, old, opts, endpoint);
  }

  /**
   * Sets `metadata.managedFields` of `obj` for a write that is not an apply: the one place
   * ownership of create, update and patch is computed (a wrapping store, such as the
   * services store, calls it at the point its own writes need).
   */
  recordOwnership(obj: KubeObject, old: KubeObject | undefined, opts: Pick<CreateOptions, 'fieldManager' | 'userAgent'>, endpoint: WriteEndpoint = this.objectEndpoint): void {
    const manager = opts.fieldManager ?? managerFromUserAgent(opts.userAgent);
    const managedFields = this.fieldManager(this.storageKind, this.servedApiVersion, endpoint).update(old ?? this.emptyStorageObject(), obj, manager).metadata?.managedFields;
    const m = meta(obj);
    if (managedFields) m.managedFields = managedFields;
    else delete m.managedFields;
  }

  /** Field managers by kind, version and endpoint: they hold no state of a request, so every write shares them. */
  private readonly fieldManagers = new Map<string, FieldManager>();
  /** The storage kind's empty object, frozen: a create's ownership is compared against it, never changed. */
  private emptyStorage: KubeObject | undefined;

  private emptyStorageObject(): KubeObject {
    return (this.emptyStorage ??= deepFreeze(emptyObjectOf(this.storageKind)));
  }

  /** The field manager for objects of `kind`, recording `apiVersion`, written through `endpoint`. */
  private fieldManager(kind: { group: string; version: string; kind: string }, apiVersion: string, endpoint: WriteEndpoint): FieldManager {
    const subresource = endpoint.subresource?.name;
    const key = `${kind.group}/${kind.version}/${kind.kind} ${apiVersion} ${subresource ?? ''} ${endpoint.resetFields.join(',')}`;
    let manager = this.fieldManagers.get(key);
    if (manager === undefined) {
      manager = fieldManagerForKind({ ...kind, apiVersion, subresource, resetFields: endpoint.resetFields, now: this.now, customResourceSchema: this.definition.customResource?.schema });
      this.fieldManagers.set(key, manager);
    }
    return manager;
  }

  /**
   * For an apply, the update callback also receives the current object with the
   * configuration merged in, ownership recorded and conflicts refused.
   */
  withApply(objInfo: UpdatedObjectInfo, opts: UpdateOptions, endpoint: WriteEndpoint): UpdatedObjectInfo {
    const apply = opts.apply;
    if (!apply) return objInfo;
    const sub = endpoint.subresource;
    const kind = { group: sub?.group ?? this.definition.group, version: sub?.version ?? this.definition.version, kind: sub?.kind ?? this.definition.kind };
    const manager = this.fieldManager(kind, apiVersionOf(kind), endpoint);
    const fieldManager = opts.fieldManager ?? managerFromUserAgent(opts.userAgent);
    return (current) => objInfo(current, manager.apply(current, clone(apply.configuration), fieldManager, apply.force));
  }

  /**
   * The empty structs and null times Kubernetes' Go encoding writes, so objects read as
   * there. The zero values of absent non-omitempty scalars come after validation, which
   * therefore still tells an absent required field from an empty one.
   */
  private fillGoZeroValues(obj: KubeObject, opts: FillOptions = {}): void {
    fillGoEncodedZeroValues(obj, this.storageKind, opts);
  }

  /** A copy as it will be stored, to compare with the stored old object. */
  private withScalarZeros(obj: KubeObject): KubeObject {
    const copy = clone(obj);
    this.fillGoZeroValues(copy, { scalars: true });
    return copy;
  }

  /** Kind-specific additions after the strategy prepared a new object (namespaces). */
  protected afterPrepareForCreate(_obj: KubeObject): void {}

  // -------------------------------------------------------------------------------------
  // Update

  async update(
    ctx: RequestContext,
    namespace: string,
    name: string,
    objInfo: UpdatedObjectInfo,
    opts: UpdateOptions,
    write: StoreWrite = {},
  ): Promise<UpdateResult> {
    return this.updateThrough(this.objectEndpoint, ctx, namespace, name, objInfo, opts, write);
  }

  /**
   * An update through `endpoint` (the object itself, or a subresource that writes a part of
   * it): an apply's configuration is merged into the current object as the endpoint's kind.
   */
  updateThrough(
    endpoint: WriteEndpoint,
    ctx: RequestContext,
    namespace: string,
    name: string,
    objInfo: UpdatedObjectInfo,
    opts: UpdateOptions,
    write: StoreWrite = {},
  ): Promise<UpdateResult> {
    return this.guaranteedUpdate(namespace, name, this.withApply(objInfo, opts, endpoint), opts, endpoint, { requester: ctx.user, ...write });
  }

  /**
   * Reads the current object, asks `objInfo` for the new one and writes it guarded by the
   * read revision. Without a client resource version, a concurrent write is retried with a
   * fresh read (last write wins); with one, it is a 409 Conflict.
   */
  async guaranteedUpdate(
    namespace: string,
    name: string,
    objInfo: UpdatedObjectInfo,
    opts: UpdateOptions,
    endpoint: WriteEndpoint,
    write: StoreWrite = {},
  ): Promise<UpdateResult> {
    const key = this.key(namespace, name);
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      const item = await this.reads.get(key);
      const current = item ? this.decode(item) : undefined;
      const proposed = await objInfo(item && current ? await this.answerOf(clone(current), item.modRevision) : undefined);
      const next = await this.requestToInternal(proposed);
      const m = meta(next);
      this.checkNameAndNamespace(m, namespace, name);

      if (!item || !current) {
        if (this.strategy.allowCreateOnUpdate !== true && !opts.forceAllowCreate) throw notFound(this.qualified, name);
        if (endpoint.subresource) throw notFound(this.qualified, name);
        this.refuseOversized(next);
        const prepared = await this.prepareCreate(next, opts, write);
        if (opts.dryRun) {
          this.encodeChecked(prepared);
          return { object: await this.dryRunExternal(prepared), created: true };
        }
        try {
          return { object: await this.storedAnswer(prepared, () => this.storage.create(key, this.encodeChecked(prepared))), created: true };
        } catch (e) {
          if (isKeyExists(e)) continue;
          throw e;
        }
      }

      // A resource version of 0 ("", "0", "00") sets no precondition, as Kubernetes' versioner reads it.
      const clientRV = m.resourceVersion ?? '';
      const unconditional = clientRV === '' || parseResourceVersion(clientRV, this.groupKind, name) === 0;
      if (unconditional) {
        if (this.strategy.allowUnconditionalUpdate === false) {
          throw invalid(this.groupKind, name, [
            { type: 'FieldValueInvalid', field: 'metadata.resourceVersion', detail: 'Invalid value: 0x0: must be specified for an update' },
          ]);
        }
      } else if (parseResourceVersion(clientRV, this.groupKind, name) !== item.modRevision) {
        throw conflict(this.qualified, name);
      }
      const old = current;
      const oldMeta = meta(old);
      if (m.uid && m.uid !== oldMeta.uid) {
        throw conflict(this.qualified, name, `Precondition failed: UID in precondition: ${m.uid}, UID in object meta: ${oldMeta.uid ?? ''}`);
      }
      this.refuseOversized(next, item);
      const updated = await this.prepareUpdate(next, old, opts, endpoint, write);

      if (this.readyToRemove(updated)) {
        // The update emptied the finalizers of an object being deleted: it goes now.
        if (opts.dryRun) return { object: await this.answerOf(updated, item.modRevision), created: false };
        try {
          let removedAt: number | undefined;
          const remove = async (): Promise<number> => {
            const removed = (await this.storage.delete(key, item.modRevision)).modRevision;
            if (opts.reportRemoval) removedAt = await this.storage.revision();
            return removed;
          };
          const object = await this.answerAround(updated, remove);
          return removedAt === undefined ? { object, created: false } : { object, created: false, removedAt };
        } catch (e) {
          // Another write came first: try again on what it left (see below).
          if (isStorageConflict(e) || (isStorageNotFound(e) && unconditional)) continue;
          if (isStorageNotFound(e)) throw notFound(this.qualified, name);
          throw e;
        }
      }

      const bytes = encodeForStorage(this.codec, updated);
      // An unchanged object is not written, so only a changed one meets the size limit.
      if (!sameBytes(bytes, item.value)) this.checkSize(bytes);
      if (sameBytes(bytes, item.value) || opts.dryRun) {
        // Nothing changed (or nothing may be written): the stored revision stands.
        return { object: await this.answerOf(updated, item.modRevision), created: false };
      }
      try {
        return { object: await this.storedAnswer(updated, () => this.storage.update(key, bytes, item.modRevision)), created: false };
      } catch (e) {
        // Another write came first. The next attempt reads what it left and asks for the
        // object again, as kube-apiserver's GuaranteedUpdate does: a patch is applied anew,
        // while a resource version the client sent no longer matches and is a conflict there.
        if (isStorageConflict(e) || (isStorageNotFound(e) && unconditional)) continue;
        if (isStorageNotFound(e)) throw notFound(this.qualified, name);
        throw e;
      }
    }
    throw conflict(this.qualified, name);
  }

  private checkNameAndNamespace(m: ObjectMeta, namespace: string, name: string): void {
    if (m.name && m.name !== name) {
      throw badRequest(`the name of the object (${m.name}) does not match the name on the URL (${name})`);
    }
    m.name = name;
    this.applyRequestNamespace(m, namespace);
  }

  /** Keeps what an update may not change, runs the strategy, validates and admits. */
  protected async prepareUpdate(obj: KubeObject, old: KubeObject, opts: UpdateOptions, endpoint: WriteEndpoint, write: StoreWrite): Promise<KubeObject> {
    const m = meta(obj);
    const oldMeta = meta(old);
    m.uid = oldMeta.uid;
    m.creationTimestamp = oldMeta.creationTimestamp;
    m.name = oldMeta.name;
    if (this.definition.namespaced) m.namespace = oldMeta.namespace;
    else delete m.namespace;
    if (oldMeta.deletionTimestamp) {
      m.deletionTimestamp = oldMeta.deletionTimestamp;
      m.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
    } else {
      delete m.deletionTimestamp;
      delete m.deletionGracePeriodSeconds;
    }
    delete m.selfLink;
    // A request never sets the generation; the strategy may raise it (a Deployment's
    // annotations), and a change of the desired state does for kinds that keep one.
    if (oldMeta.generation === undefined) delete m.generation;
    else m.generation = oldMeta.generation;
    this.strategy.defaults(obj);
    endpoint.prepareForUpdate(obj, old, this.now());
    this.fillGoZeroValues(obj);
    if (this.tracksGeneration && meta(obj).generation === oldMeta.generation && specPart(this.withScalarZeros(obj)) !== specPart(old)) {
      meta(obj).generation = (oldMeta.generation ?? 0) + 1;
    }
    const errs = [...validateObjectMetaUpdate(meta(obj), oldMeta), ...endpoint.validateUpdate(obj, old)];
    if (errs.length > 0) throw invalid(this.groupKind, this.nameOf(obj), errs);
    this.fillGoZeroValues(obj, { scalars: true });
    this.trackManagedFields(obj, old, opts, endpoint, write);
    if (opts.validate) await opts.validate(obj, old);
    return obj;
  }

  /**
   * An object whose deletion was requested and that no finalizer holds any more. One still
   * in its grace period (a pod waiting for its node) stays: a status write must not end it.
   */
  protected readyToRemove(obj: KubeObject): boolean {
    const m = obj.metadata ?? {};
    return !!m.deletionTimestamp && (m.finalizers ?? []).length === 0 && (m.deletionGracePeriodSeconds ?? 0) === 0;
  }

  // -------------------------------------------------------------------------------------
  // Delete

  async delete(ctx: RequestContext, namespace: string, name: string, opts: DeleteOptions): Promise<DeleteResult> {
    validateDeleteOptions(opts);
    const key = this.key(namespace, name);
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      const item = await this.reads.get(key);
      if (!item) throw notFound(this.qualified, name);
      const current = this.decode(item);
      this.checkPreconditions(current, name, opts);
      if (opts.validate) await opts.validate(current, current);
      // The propagation policy becomes the garbage collector's finalizers here (planDelete).
      const outcome = await this.deleteOutcome(current, opts);
      try {
        if (outcome.kind === 'unchanged') return { object: await this.answerOf(current, item.modRevision), deleted: false };
        if (outcome.kind === 'update') {
          if (opts.dryRun) {
            this.encodeChecked(outcome.object);
            return { object: await this.answerOf(outcome.object, item.modRevision), deleted: false };
          }
          const update = () => this.storage.update(key, this.encodeChecked(outcome.object), item.modRevision);
          return { object: await this.storedAnswer(outcome.object, update), deleted: false };
        }
        if (outcome.kind === 'updateThenRemove') {
          // Marked first, then removed: watchers see the deletion timestamp before the object goes.
          if (opts.dryRun) return { object: await this.answerOf(outcome.object, item.modRevision), deleted: true };
          const updateThenRemove = async (): Promise<Item> => {
            const written = await this.storage.update(key, this.encodeChecked(outcome.object), item.modRevision);
            try {
              await this.storage.delete(key, written.modRevision);
            } catch (e) {
              // Someone else finished the deletion in between: that is what was asked.
              if (!isStorageNotFound(e)) throw e;
            }
            return written;
          };
          return { object: await this.storedAnswer(outcome.object, updateThenRemove), deleted: true };
        }
        if (opts.dryRun) return { object: await this.answerOf(current, item.modRevision), deleted: true };
        let removedAt: number | undefined;
        const remove = async (): Promise<number> => {
          await this.storage.delete(key, item.modRevision);
          if (opts.reportRemoval) removedAt = await this.storage.revision();
          return item.modRevision;
        };
        const object = await this.answerAround(current, remove);
        return removedAt === undefined ? { object, deleted: true } : { object, deleted: true, removedAt };
      } catch (e) {
        if (isStorageConflict(e)) continue;
        if (isStorageNotFound(e)) throw notFound(this.qualified, name);
        throw e;
      }
    }
    throw conflict(this.qualified, name);
  }

  private checkPreconditions(current: KubeObject, name: string, opts: DeleteOptions): void {
    const m = current.metadata ?? {};
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== m.uid) {
      throw conflict(this.qualified, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${m.uid ?? ''}`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== m.resourceVersion) {
      throw conflict(
        this.qualified,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${m.resourceVersion ?? ''}`,
      );
    }
  }

  /**
   * What a delete does to `current`: remove it, mark it as being deleted (finalizers hold
   * it), or nothing (already marked).
   */
  protected async deleteOutcome(current: KubeObject, opts: DeleteOptions): Promise<DeletePlan> {
    return planDelete(this.strategy, current, opts, this.now());
  }

  protected markDeleting(current: KubeObject): KubeObject {
    return markDeleting(current, this.now());
  }

  async deleteCollection(ctx: RequestContext, namespace: string, opts: DeleteOptions, listOpts: ListOptions): Promise<KubeList> {
    validateDeleteOptions(opts);
    return deleteEach(this as Required<Pick<RESTStore, 'list' | 'delete'>>, ctx, namespace, opts, listOpts);
  }
}

/**
 * deletecollection as Kubernetes does it: list the matches, then delete each through the
 * store's own delete (finalizers and kind-specific deletion apply), skipping what is gone.
 */
export async function deleteEach(
  store: Required<Pick<RESTStore, 'list' | 'delete'>>,
  ctx: RequestContext,
  namespace: string,
  opts: DeleteOptions,
  listOpts: ListOptions,
): Promise<KubeList> {
  const listed = await store.list(ctx, namespace, {
    labelSelector: listOpts.labelSelector,
    fieldSelector: listOpts.fieldSelector,
    resourceVersion: listOpts.resourceVersion,
    resourceVersionMatch: listOpts.resourceVersionMatch,
  });
  const deleted: KubeObject[] = [];
  for (const obj of listed.items) {
    const m = obj.metadata ?? {};
    try {
      const result = await store.delete(ctx, m.namespace ?? namespace, m.name ?? '', { ...opts, preconditions: undefined, onEach: undefined });
      opts.onEach?.(result);
      deleted.push(result.object);
    } catch (e) {
      // Gone in the meantime: someone else deleted it, which is what was asked.
      if (e instanceof ApiError && e.code === 404) continue;
      throw e;
    }
  }
  return { ...listed, metadata: { resourceVersion: listed.metadata.resourceVersion }, items: deleted };
}
