// The generic Strategy: what every stored kind does the same way (status handling on
// create/update/status update, the name rule, metadata field selectors, the default
// table), parameterized by a KindSpec that holds a kind's own behaviour.
import type { FieldError } from '../apimachinery/errors.js';
import type { KubeObject, UserInfo } from '../apimachinery/types.js';
import type { KindFacts, ResourceHandler, Strategy, SubresourceDefinition, TableConvertor } from '../rest/index.js';
import { defaultTableConvertor } from './table.js';
import { clone, meta } from './util.js';
import { dns1123SubdomainName } from '../apimachinery/names.js';
import { setOwn } from '../apimachinery/own.js';

/** Metadata fields a `/status` write may not change for a kind (Kubernetes keeps them from the old object). */
type StatusProtectedMeta = 'labels' | 'annotations' | 'ownerReferences' | 'finalizers';

/** Who serves one of a kind's subresources (see `SubresourceServing`) and, for connect, how it is reached. */
export type SubresourceDeclaration = Pick<SubresourceDefinition, 'serving' | 'connect'>;

/**
 * A kind's own behaviour: its facts (`KindFacts`: name rule, create on update, generation,
 * graceful deletion, scale, ...), which its Strategy carries as they are, and the hooks below,
 * which the generic base calls; everything optional falls back to the generic base.
 */
export interface KindSpec extends KindFacts {
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
  /**
   * All the checks of an update, instead of `validate` and `validateUpdate`: for a kind whose
   * update rules are not its create rules (CRDs: data stored under older rules stays valid).
   */
  validateWholeUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  /** The checks of a `/status` write, instead of the update's (see Strategy.validateStatusUpdate). */
  validateStatusUpdate?(obj: KubeObject, old: KubeObject): FieldError[];
  /** Field-selector attributes beyond metadata.name / metadata.namespace. */
  fields?: Record<string, (obj: KubeObject) => string>;
  table?: TableConvertor;
  /** Checks only a create runs (fields a new object may not set), after `validate`. */
  validateCreate?(obj: KubeObject): FieldError[];
  /**
   * Who serves each subresource the API surface lists for the kind, by name. `status` and
   * `scale` are served by the Store's status and scale rules unless declared here.
   */
  subresources?: Readonly<Record<string, SubresourceDeclaration>>;
  /** For a virtual kind (no storage): the store the server provides for it (see `ResourceDefinition.handler`). */
  handler?: ResourceHandler;
}

export interface StrategyShape {
  namespaced: boolean;
  hasStatus: boolean;
}

/** Top-level fields that belong to the object's identity rather than its content. */
const HEADER_FIELDS = new Set(['apiVersion', 'kind', 'metadata', 'status']);

/** The facts of `spec`: everything but the hooks and declarations the generic base reads itself. */
function factsOf(spec: KindSpec): KindFacts {
  const {
    clearStatusOnCreate: _clearStatusOnCreate,
    defaults: _defaults,
    prepareForCreate: _prepareForCreate,
    prepareForUpdate: _prepareForUpdate,
    statusProtectedMeta: _statusProtectedMeta,
    prepareForStatusUpdate: _prepareForStatusUpdate,
    validate: _validate,
    validateUpdate: _validateUpdate,
    validateWholeUpdate: _validateWholeUpdate,
    validateStatusUpdate: _validateStatusUpdate,
    fields: _fields,
    table: _table,
    validateCreate: _validateCreate,
    subresources: _subresources,
    handler: _handler,
    ...facts
  } = spec;
  return facts;
}

export function makeStrategy(spec: KindSpec, shape: StrategyShape): Strategy {
  const fields = spec.fields ?? {};
  const clearStatus = spec.clearStatusOnCreate ?? shape.hasStatus;
  const protectedMeta = spec.statusProtectedMeta ?? [];

  // ObjectMeta is validated by the Store for every kind, with `validateName`; the kind
  // checks the rest.
  const validate = (o: KubeObject): FieldError[] => spec.validate?.(o) ?? [];

  return {
    // The defaults of the facts, stated where a reader of a Strategy looks for them.
    validateName: dns1123SubdomainName,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    ...factsOf(spec),
    hasStatus: shape.hasStatus,
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
      if (spec.validateWholeUpdate) return spec.validateWholeUpdate(o, old);
      return [...validate(o), ...(spec.validateUpdate?.(o, old) ?? [])];
    },
    ...(spec.validateStatusUpdate ? { validateStatusUpdate: (o: KubeObject, old: KubeObject) => spec.validateStatusUpdate!(o, old) } : {}),
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
}
