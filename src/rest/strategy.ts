// A kind's behaviour, consulted by the generic Store (Kubernetes' RESTCreateStrategy,
// RESTUpdateStrategy and RESTDeleteStrategy in one interface), and its version conversion.
import type { FieldError } from '../apimachinery/errors.js';
import type { KubeObject, UserInfo } from '../apimachinery/types.js';
import type { DeleteOptions } from './options.js';
import type { TableConvertor } from './table-convertor.js';

/**
 * What a kind decides about the generic verbs, each read by the Store as it is. A kind
 * declares them (`KindSpec` in `apis/`) and its Strategy carries them unchanged; every one is
 * optional, with the default said here.
 */
export interface KindFacts {
  /** PUT of a missing object creates it (default false). */
  allowCreateOnUpdate?: boolean;
  /** PUT without `metadata.resourceVersion` is allowed, last write wins (default true). */
  allowUnconditionalUpdate?: boolean;
  /**
   * The kind's name rule: the problems of a name, or of a `generateName` prefix when
   * `prefix` is true (empty when valid). DNS-1123 subdomains when absent.
   */
  validateName?(name: string, prefix: boolean): string[];
  /** Present on kinds with a `scale` subresource: where replicas and selector live. */
  scale?: ScaleAccess;
  /**
   * Present on kinds deleted gracefully (pods; Kubernetes' CheckGracefulDelete): the grace
   * period in seconds a first delete gives `obj`, from the options (a negative
   * `gracePeriodSeconds` already reads 1) and the object. 0 removes it at once.
   */
  gracefulDeletePeriod?(obj: KubeObject, opts: DeleteOptions): number;
  /**
   * The server keeps `metadata.generation`: 1 on create, raised when the desired state
   * changes (workloads, policies, webhook configurations, CRDs, custom resources). Other
   * kinds leave it to whatever the object carries.
   */
  tracksGeneration?: boolean;
  /** A completed delete answers with the deleted object instead of a Success Status (pods, services, ...). */
  returnDeletedObject?: boolean;
  /**
   * What a delete without a propagation policy does to dependents (Kubernetes'
   * DefaultGarbageCollectionPolicy): `DeleteDependents` when unset; `OrphanDependents` for
   * kinds that keep the old default; `Unsupported` for kinds the collector never finalizes.
   */
  defaultGarbageCollectionPolicy?: 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';
  /**
   * Deletion goes through the namespace lifecycle (the namespaces' store): a first delete
   * only marks the namespace Terminating, and it goes once `spec.finalizers` is empty.
   */
  namespaceLifecycle?: boolean;
}

/** A kind's behaviour: its facts and the hooks the Store calls around every write. */
export interface Strategy extends KindFacts {
  /** Whether the kind has a `status` subresource (then the main resource ignores status). */
  hasStatus: boolean;
  /** Defaults applied to every incoming object of the kind, before validation. */
  defaults(obj: KubeObject): void;
  /**
   * Clears what a create may not set (e.g. status when the kind has a status subresource);
   * `requester` is who asks (a CertificateSigningRequest records it).
   */
  prepareForCreate(obj: KubeObject, requester?: UserInfo): void;
  /** Restores what an update of the main resource may not change (e.g. status). */
  prepareForUpdate(obj: KubeObject, old: KubeObject): void;
  /** For `/status`: keep everything of `old` but the status of `obj`. `now` is the Store's clock. */
  prepareForStatusUpdate(obj: KubeObject, old: KubeObject, now: Date): void;
  validate(obj: KubeObject): FieldError[];
  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[];
  /** The checks of a `/status` write; `validateUpdate` when absent. */
  validateStatusUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  /** Field-selector attributes (always `metadata.name`, and `metadata.namespace` when namespaced). */
  selectableFields(obj: KubeObject): Record<string, string>;
  /** Extra field-selector keys this kind supports, beyond the metadata ones. */
  fieldSelectorKeys: string[];
  table: TableConvertor;
}

/**
 * How a subresource that owns one part of an object updates it, as `status` does (pods'
 * `ephemeralcontainers`, namespaces' `finalize`, CSRs' `approval`): get answers the whole
 * object, update keeps the rest.
 */
export interface PartUpdate {
  /** Restores everything but the part from `old`. `now` is the Store's clock. */
  prepareForUpdate(obj: KubeObject, old: KubeObject, now: Date): void;
  /** The checks of such an update, replacing the kind's update validation; the kind's when absent. */
  validateUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
}

export interface ScaleAccess {
  /** Reads `spec.replicas` (or its equivalent). */
  specReplicas(obj: KubeObject): number;
  setSpecReplicas(obj: KubeObject, replicas: number): void;
  statusReplicas(obj: KubeObject): number;
  /** The label selector in string form (`status.selector` of Scale). */
  selector(obj: KubeObject): string;
}

/**
 * Conversion of a served version to and from the version the kind is stored in. Built-in
 * kinds convert synchronously. A conversion that has to wait for another party (a custom
 * resource's conversion webhook) sets `async`; its synchronous pair then throws, so code
 * that does not know about waiting fails loudly instead of passing a Promise on as an
 * object. Callers decide once per request which pair to use, so the hot paths of built-in
 * kinds never await.
 */
export interface VersionConversion {
  toStorage(obj: KubeObject): KubeObject;
  fromStorage(obj: KubeObject): KubeObject;
  async?: AsyncVersionConversion;
}

/** A conversion that waits; failures reject with the `ApiError` the client receives. */
export interface AsyncVersionConversion {
  toStorage(obj: KubeObject): Promise<KubeObject>;
  fromStorage(obj: KubeObject): Promise<KubeObject>;
  /** Several stored objects (a list page) in one call, answered in the same order. */
  fromStorageAll(objs: KubeObject[]): Promise<KubeObject[]>;
}
