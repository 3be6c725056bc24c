// The generic Strategy: what every stored kind does the same way (status handling on
// create/update/status update, the name rule, metadata field selectors, the default
// table), parameterized by a KindSpec that holds a kind's own behaviour.
import type { FieldError } from '../apimachinery/errors.js';
import type { KubeObject, UserInfo } from '../apimachinery/types.js';
import type { ScaleAccess, Strategy, SubresourceDefinition, TableConvertor } from '../rest/index.js';
import { defaultTableConvertor } from './table.js';
import { clone, meta } from './util.js';
import { dns1123SubdomainName, type NameValidator } from '../apimachinery/names.js';
import { setOwn } from '../apimachinery/own.js';

/** Metadata fields a `/status` write may not change for a kind (Kubernetes keeps them from the old object). */
type StatusProtectedMeta = 'labels' | 'annotations' | 'ownerReferences' | 'finalizers';

/** Who serves one of a kind's subresources (see `SubresourceServing`) and, for connect, how it is reached. */
export type SubresourceDeclaration = Pick<SubresourceDefinition, 'serving' | 'connect'>;

/** A kind's own behaviour; everything optional falls back to the generic base. */
export interface KindSpec {
  /** The kind's name rule, handed to the Store as Strategy.validateName (DNS subdomain by default). */
  validateName?: NameValidator;
  /** PUT of a missing object creates it (default false). */
  allowCreateOnUpdate?: boolean;
  /** PUT without resourceVersion is accepted (default true). */
  allowUnconditionalUpdate?: boolean;
  /** Whether create drops a client-supplied status (default: when the kind has a status subresource). */
  clearStatusOnCreate?: boolean;
  defaults?(obj: KubeObject): void;
  /** Runs after the generic create preparation (e.g. to set an initial status); `requester` is who asks. */
  prepareForCreate?(obj: KubeObject, requester?: UserInfo): void;
  /** Runs after the generic update preparation (status already restored). */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  /** Metadata a status update keeps from the old object. */
  statusProtectedMeta?: StatusProtectedMeta[];
  /** Runs after the generic status-update preparation (everything but status restored); `now` is the Store's clock. */
  prepareForStatusUpdate?(obj: KubeObject, old: KubeObject, now: Date): void;
  /** The kind's own checks of a whole object (metadata checks are generic). */
  validate?(obj: KubeObject): FieldError[];
  /** Extra checks of an update (immutable fields, allowed transitions), after `validate`. */
  validateUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  /** Field-selector attributes beyond metadata.name / metadata.namespace. */
  fields?: Record<string, (obj: KubeObject) => string>;
  table?: TableConvertor;
  scale?: ScaleAccess;
  /** Graceful deletion (pods): the grace period a first delete gives the object. */
  gracefulDeletePeriod?: Strategy['gracefulDeletePeriod'];
  /** A completed delete answers with the deleted object (default: a Success Status). */
  returnDeletedObject?: boolean;
  /** What a delete without a policy does to dependents (see Strategy.defaultGarbageCollectionPolicy). */
  defaultGarbageCollectionPolicy?: Strategy['defaultGarbageCollectionPolicy'];
  /** The server keeps `metadata.generation` (default false; see Strategy.tracksGeneration). */
  tracksGeneration?: boolean;
  /** Deletion goes through the namespace lifecycle (the Namespace kind only). */
  namespaceLifecycle?: boolean;
  /** Checks only a create runs (fields a new object may not set), after `validate`. */
  validateCreate?(obj: KubeObject): FieldError[];
  /**
   * Who serves each subresource the API surface lists for the kind, by name. `status` and
   * `scale` are served by the Store's status and scale rules unless declared here.
   */
  subresources?: Readonly<Record<string, SubresourceDeclaration>>;
}

export interface StrategyShape {
  namespaced: boolean;
  hasStatus: boolean;
}

/** Top-level fields that belong to the object's identity rather than its content. */
const HEADER_FIELDS = new Set(['apiVersion', 'kind', 'metadata', 'status']);

export function makeStrategy(spec: KindSpec, shape: StrategyShape): Strategy {
  const nameRule = spec.validateName ?? dns1123SubdomainName;
  const fields = spec.fields ?? {};
  const clearStatus = spec.clearStatusOnCreate ?? shape.hasStatus;
  const protectedMeta = spec.statusProtectedMeta ?? [];

  // ObjectMeta is validated by the Store for every kind, with `validateName`; the kind
  // checks the rest.
  const validate = (o: KubeObject): FieldError[] => spec.validate?.(o) ?? [];

  const strategy: Strategy = {
    hasStatus: shape.hasStatus,
    validateName: nameRule,
    allowCreateOnUpdate: spec.allowCreateOnUpdate ?? false,
    allowUnconditionalUpdate: spec.allowUnconditionalUpdate ?? true,
    defaults(o) {
      spec.defaults?.(o);
    },
    prepareForCreate(o, requester) {
      // An empty status, as a zero-valued status struct serializes.
      if (clearStatus) o.status = {};
      spec.prepareForCreate?.(o, requester);
    },
    prepareForUpdate(o, old) {
      if (shape.hasStatus) {
        if (old.status === undefined) delete o.status;
        else o.status = clone(old.status);
      }
      spec.prepareForUpdate?.(o, old);
    },
    prepareForStatusUpdate(o, old, now) {
      for (const key of Object.keys(o)) if (!HEADER_FIELDS.has(key)) delete o[key];
      for (const [key, value] of Object.entries(old)) if (!HEADER_FIELDS.has(key)) setOwn(o, key, clone(value));
      if (protectedMeta.length > 0) {
        const m = (o.metadata ??= {});
        const oldMeta = meta(old);
        for (const key of protectedMeta) {
          if (oldMeta[key] === undefined) delete m[key];
          else (m as Record<string, unknown>)[key] = clone(oldMeta[key]);
        }
      }
      spec.prepareForStatusUpdate?.(o, old, now);
    },
    validate: spec.validateCreate ? (o) => [...validate(o), ...(spec.validateCreate?.(o) ?? [])] : validate,
    validateUpdate(o, old) {
      return [...validate(o), ...(spec.validateUpdate?.(o, old) ?? [])];
    },
    selectableFields(o) {
      const m = meta(o);
      const out: Record<string, string> = { 'metadata.name': m.name ?? '' };
      if (shape.namespaced) out['metadata.namespace'] = m.namespace ?? '';
      for (const [key, read] of Object.entries(fields)) out[key] = read(o);
      return out;
    },
    fieldSelectorKeys: Object.keys(fields),
    table: spec.table ?? defaultTableConvertor,
  };
  if (spec.scale) strategy.scale = spec.scale;
  if (spec.gracefulDeletePeriod) strategy.gracefulDeletePeriod = spec.gracefulDeletePeriod;
  if (spec.returnDeletedObject) strategy.returnDeletedObject = true;
  if (spec.defaultGarbageCollectionPolicy) strategy.defaultGarbageCollectionPolicy = spec.defaultGarbageCollectionPolicy;
  if (spec.tracksGeneration) strategy.tracksGeneration = true;
  if (spec.namespaceLifecycle) strategy.namespaceLifecycle = true;
  return strategy;
}
