// Contracts of the registry layer: what a kind's Strategy tells the generic Store, what a
// served resource looks like in the resource table, and the verbs the server's handlers
// call on a Store (Kubernetes' rest.Storage family, as one interface with optional verbs).
import type { FieldError } from '../apimachinery/errors.js';
import type { GroupVersion, KubeList, KubeObject, UserInfo, WatchEvent } from '../apimachinery/types.js';

// ---------------------------------------------------------------------------------------
// Tables

export interface TableColumnDefinition {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string;
  description: string;
  priority: number;
}

/** How a kind prints: the column definitions and the cells of one object's row. */
export interface TableConvertor {
  columns: TableColumnDefinition[];
  /** One row's cells, in column order. `now` lets Age columns be computed deterministically. */
  cells(obj: KubeObject, now: Date): unknown[];
}

// ---------------------------------------------------------------------------------------
// Strategy: a kind's behaviour, consulted by the generic Store.

export interface Strategy {
  /** Whether the kind has a `status` subresource (then the main resource ignores status). */
  hasStatus: boolean;
  /** PUT of a missing object creates it. */
  allowCreateOnUpdate: boolean;
  /** PUT without `metadata.resourceVersion` is allowed (last write wins). */
  allowUnconditionalUpdate: boolean;
  /** Defaults applied to every incoming object of the kind, before validation. */
  defaults(obj: KubeObject): void;
  /** Clears what a create may not set (e.g. status when the kind has a status subresource). */
  prepareForCreate(obj: KubeObject): void;
  /** Restores what an update of the main resource may not change (e.g. status). */
  prepareForUpdate(obj: KubeObject, old: KubeObject): void;
  /** For `/status`: keep everything of `old` but the status of `obj`. */
  prepareForStatusUpdate(obj: KubeObject, old: KubeObject): void;
  validate(obj: KubeObject): FieldError[];
  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[];
  /**
   * The kind's name rule: the problems of a name, or of a `generateName` prefix when
   * `prefix` is true (empty when valid). DNS-1123 subdomains when absent.
   */
  validateName?(name: string, prefix: boolean): string[];
  /** Field-selector attributes (always `metadata.name`, and `metadata.namespace` when namespaced). */
  selectableFields(obj: KubeObject): Record<string, string>;
  /** Extra field-selector keys this kind supports, beyond the metadata ones. */
  fieldSelectorKeys: string[];
  table: TableConvertor;
  /** Present on kinds with a `scale` subresource: where replicas and selector live. */
  scale?: ScaleAccess;
  /**
   * Present on kinds deleted gracefully (pods; Kubernetes' CheckGracefulDelete): the grace
   * period in seconds a first delete gives `obj`, from the options (a negative
   * `gracePeriodSeconds` already reads 1) and the object. 0 removes it at once.
   */
  gracefulDeletePeriod?(obj: KubeObject, opts: DeleteOptions): number;
}

export interface ScaleAccess {
  /** Reads `spec.replicas` (or its equivalent). */
  specReplicas(obj: KubeObject): number;
  setSpecReplicas(obj: KubeObject, replicas: number): void;
  statusReplicas(obj: KubeObject): number;
  /** The label selector in string form (`status.selector` of Scale). */
  selector(obj: KubeObject): string;
}

/** Conversion of a served version to and from the version the kind is stored in. */
export interface VersionConversion {
  toStorage(obj: KubeObject): KubeObject;
  fromStorage(obj: KubeObject): KubeObject;
}

// ---------------------------------------------------------------------------------------
// The resource table: which group-version-resources are served.

export interface SubresourceDefinition {
  name: string;
  kind: string;
  /** Group and version of the subresource's kind when it differs (Scale, Eviction, TokenRequest). */
  group?: string;
  version?: string;
  verbs: string[];
}

export interface ResourceDefinition {
  group: string;
  version: string;
  resource: string;
  kind: string;
  singularName: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  subresources: SubresourceDefinition[];
  /** The preferred version of its group (discovery). */
  preferred: boolean;
  deprecated?: { since?: string; removedIn?: string; replacement?: string };
  /**
   * Where objects live: the resource and group whose key space they share, and the version
   * they are stored in. Absent for virtual resources (reviews, bindings, ...).
   */
  storage?: { group: string; resource: string; version: string };
  /** The kind's behaviour; absent for virtual resources. */
  strategy?: Strategy;
  /** Conversion to the storage version when this version is not it. */
  conversion?: VersionConversion;
}

// ---------------------------------------------------------------------------------------
// The verbs a served resource implements.

export interface RequestContext {
  user: UserInfo;
  /** Aborted when the client goes away or the request times out. */
  signal: AbortSignal;
  /** Warnings for the client; the server sends each as a `Warning: 299 - "..."` header. */
  warnings: string[];
}

export interface GetOptions {
  resourceVersion?: string;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  limit?: number;
  continue?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
}

/** Admission's validating hook, run inside the Store after the strategy's validation. */
export type ValidateObjectFunc = (obj: KubeObject, old: KubeObject | undefined) => Promise<void>;

export interface CreateOptions {
  dryRun: boolean;
  fieldManager?: string;
  /** The request's User-Agent: names the manager of a write without `fieldManager`. */
  userAgent?: string;
  validate?: ValidateObjectFunc;
}

export interface UpdateOptions {
  dryRun: boolean;
  fieldManager?: string;
  /** The request's User-Agent: names the manager of a write without `fieldManager`. */
  userAgent?: string;
  force?: boolean;
  validate?: ValidateObjectFunc;
  /** A missing object is created even where PUT may not create (server-side apply). */
  forceAllowCreate?: boolean;
  /** The new object already carries its managedFields (server-side apply computed them). */
  managedFieldsComputed?: boolean;
}

export interface DeleteOptions {
  dryRun: boolean;
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
  validate?: ValidateObjectFunc;
}

/** Computes the new object from the current one (undefined when it does not exist). */
export type UpdatedObjectInfo = (current: KubeObject | undefined) => KubeObject | Promise<KubeObject>;

export interface UpdateResult {
  object: KubeObject;
  /** True when the update created the object (201). */
  created: boolean;
}

export interface DeleteResult {
  /** The deleted object, or the object as it now stands while finalizers remain. */
  object: KubeObject;
  /** False while the object waits for finalizers (202 when graceful). */
  deleted: boolean;
}

/**
 * One served resource. Generic stored kinds implement every verb; virtual resources
 * implement only theirs. `subresource` selects `status`, `scale`, `finalize`, `approval`, ...
 */
export interface RESTStore {
  readonly definition: ResourceDefinition;
  get?(ctx: RequestContext, namespace: string, name: string, opts: GetOptions, subresource?: string): Promise<KubeObject>;
  list?(ctx: RequestContext, namespace: string, opts: ListOptions): Promise<KubeList>;
  /** Ends when `ctx.signal` aborts or `timeoutSeconds` passes. Throws ApiError before the first event. */
  watch?(ctx: RequestContext, namespace: string, opts: ListOptions): Promise<AsyncIterable<WatchEvent>>;
  /** `name` and `subresource` are set for subresource creates (`pods/x/eviction`, `serviceaccounts/x/token`). */
  create?(ctx: RequestContext, namespace: string, obj: KubeObject, opts: CreateOptions, name?: string, subresource?: string): Promise<KubeObject>;
  update?(ctx: RequestContext, namespace: string, name: string, objInfo: UpdatedObjectInfo, opts: UpdateOptions, subresource?: string): Promise<UpdateResult>;
  delete?(ctx: RequestContext, namespace: string, name: string, opts: DeleteOptions): Promise<DeleteResult>;
  deleteCollection?(ctx: RequestContext, namespace: string, opts: DeleteOptions, listOpts: ListOptions): Promise<KubeList>;
}

/** The served resources, changing at run time (CRDs, runtime config). */
export interface ResourceTable {
  lookup(gv: GroupVersion, resource: string): RESTStore | undefined;
  /** Every served resource, in a stable order. */
  all(): RESTStore[];
  add(store: RESTStore): void;
  remove(gv: GroupVersion, resource: string): void;
  /** Called after every change; returns an unsubscribe function. */
  onChange(listener: () => void): () => void;
}
