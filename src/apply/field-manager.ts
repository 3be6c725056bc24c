// The FieldManager: keeps `metadata.managedFields` on every write and implements
// server-side apply. Pure: objects in, objects out; the Store and the PATCH handler call it.
import { ApiError, badRequest, type StatusCause } from '../apimachinery/errors.js';
import { isPlainObject, type KubeObject } from '../apimachinery/types.js';
import { FieldSet, fieldElement, formatPath, type FieldPath } from './fieldpath.js';
import {
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  isResetManagedFields,
  managerIdentifier,
  type ManagedFields,
  type ManagerEntry,
} from './managed-fields.js';
import type { ApplySchema, ApplyType } from './schema.js';
import { deepEqual } from '../apimachinery/equality.js';
import { FieldPathError, compare, type Comparison, merge, removeFields, reconcileWithSchema, schemaErrors, toFieldSet, withNamedFieldsAsMembers } from './typed-value.js';
import { rfc3339 } from '../apimachinery/time.js';
import { lastAppliedAnnotation, withLastApplied } from './last-applied.js';
import { deepCopy } from '../apimachinery/copy.js';

export interface FieldManagerOptions {
  schema: ApplySchema;
  /** The type of the objects handled. */
  type: ApplyType;
  /** `group/version` recorded in the entries (the version of the request). */
  apiVersion: string;
  /** `status` for writes to the status subresource. */
  subresource?: string;
  /** Fields nobody owns through this endpoint (status on the main resource of kinds with a status subresource). */
  resetFields?: FieldSet;
  now: () => Date;
  /** The kind's empty object (its Go zero value), what the fields found before a first apply are compared with. */
  emptyObject?: () => KubeObject;
}

/** The manager that owns the fields an object had when its first apply came. */
export const BEFORE_FIRST_APPLY_MANAGER = 'before-first-apply';
/** The only applier whose conflicts with its own client-side apply are taken over. */
const MIGRATING_MANAGER = 'kubectl';

/** Object fields the server sets: never owned by a manager. */
const STRIPPED = FieldSet.of([
  [fieldElement('apiVersion')],
  [fieldElement('kind')],
  [fieldElement('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => [
    fieldElement('metadata'),
    fieldElement(f),
  ]),
]);


/** The object without `metadata.managedFields`. */
function bare(obj: KubeObject | undefined): KubeObject {
  if (!obj) return {};
  const copy = deepCopy(obj);
  if (copy.metadata) delete copy.metadata.managedFields;
  return copy;
}

/**
 * The object without `metadata.managedFields`, sharing everything else with `obj`: for
 * reads only (comparisons), where a deep copy of a large object is pure cost.
 */
function bareView(obj: KubeObject | undefined): KubeObject {
  if (!obj) return {};
  if (!obj.metadata || obj.metadata.managedFields === undefined) return obj;
  const { managedFields: _managedFields, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

function cloneManaged(managed: ManagedFields): ManagedFields {
  return new Map([...managed].map(([id, e]) => [id, { ...e }]));
}

function withManagedFields(obj: KubeObject, managed: ManagedFields): KubeObject {
  const entries = encodeManagedFields(managed);
  const metadata = { ...(obj.metadata ?? {}) };
  if (entries.length > 0) metadata.managedFields = entries;
  else delete metadata.managedFields;
  return { ...obj, metadata };
}

export class FieldManager {
  constructor(private readonly opts: FieldManagerOptions) {}

  private ownable(set: FieldSet): FieldSet {
    const s = set.difference(STRIPPED);
    return this.opts.resetFields ? s.recursiveDifference(this.opts.resetFields) : s;
  }

  /** What changed, leaving out fields this endpoint cannot change (the strategy resets them). */
  private compare(lhs: KubeObject, rhs: KubeObject): Comparison {
    const c = compare(lhs, rhs, this.opts.type, this.opts.schema);
    const reset = this.opts.resetFields;
    if (!reset) return c;
    return { added: c.added.recursiveDifference(reset), modified: c.modified.recursiveDifference(reset), removed: c.removed.recursiveDifference(reset) };
  }

  /** The ownership the write starts from (Kubernetes' rules for client-sent managedFields). */
  private baseManagedFields(live: KubeObject | undefined, next: KubeObject): ManagedFields {
    const liveManaged = (): ManagedFields => decodeManagedFields(live?.metadata?.managedFields);
    if (this.opts.subresource) return liveManaged();
    const sent = next.metadata?.managedFields;
    if (isResetManagedFields(sent)) return new Map();
    try {
      const decoded = decodeManagedFields(sent);
      if (decoded.size > 0) return decoded;
    } catch {
      // An unreadable list from the client is ignored, as an absent one is.
    }
    return liveManaged();
  }

  /**
   * A non-apply write (create, update, patch, subresource): `manager` takes the fields that
   * changed from `live` (undefined or the kind's empty object on create) to `next`, others
   * lose them. Returns `next` with its managedFields.
   */
  update(live: KubeObject | undefined, next: KubeObject, manager: string): KubeObject {
    let managed: ManagedFields;
    try {
      managed = this.baseManagedFields(live, next);
    } catch {
      // Ownership that cannot be read is dropped rather than failing the write.
      return withManagedFields(next, new Map());
    }
    // The result shares its values with `next` (only its metadata is a new object), as the
    // callers keep `next` or take just the managed fields from it.
    const nextBare = bareView(next);
    let c;
    try {
      c = this.compare(bareView(live), nextBare);
    } catch (e) {
      if (e instanceof FieldPathError) return withManagedFields(nextBare, new Map());
      throw e;
    }
    const changed = c.modified.union(c.added);
    for (const [id, e] of managed) {
      e.set = e.set.difference(changed).difference(c.removed);
      if (e.set.empty()) managed.delete(id);
    }
    const taken = this.ownable(changed);
    if (!taken.empty()) {
      const entry: ManagerEntry = { manager, operation: 'Update', apiVersion: this.opts.apiVersion, set: taken };
      if (this.opts.subresource) entry.subresource = this.opts.subresource;
      const id = managerIdentifier(entry);
      const previous = managed.get(id);
      if (previous) entry.set = previous.set.union(taken);
      entry.time = rfc3339(this.opts.now());
      managed.set(id, entry);
    }
    capUpdateManagers(managed);
    return withManagedFields(nextBare, managed);
  }

  /**
   * Server-side apply of `config` by `manager` onto `live` (undefined when the apply creates
   * the object). Throws 409 on conflicts unless forced, 400 for a configuration that
   * carries managedFields.
   */
  apply(live: KubeObject | undefined, config: KubeObject, manager: string, force: boolean): KubeObject {
    if (config.metadata?.managedFields !== undefined) throw badRequest('metadata.managedFields must be nil');
    let managed: ManagedFields;
    try {
      managed = decodeManagedFields(live?.metadata?.managedFields);
    } catch (e) {
      throw new ApiError(500, 'InternalError', `failed to decode managed fields: ${e instanceof Error ? e.message : String(e)}`);
    }
    const { schema, type } = this.opts;
    const errs = schemaErrors(config, type, schema);
    if (errs.length > 0) {
      // Kubernetes answers these as an internal error: a bare 500 without a reason.
      const err = new ApiError(500, '', `failed to create typed patch object (${describeObject(config, this.opts.apiVersion)}): ${joinErrors(errs)}`);
      delete err.status.reason;
      throw err;
    }
    const liveBare = bare(live);
    for (const e of managed.values()) e.set = reconcileWithSchema(e.set, type, schema);
    try {
      let outcome = this.merge(live, liveBare, cloneManaged(managed), config, manager, force);
      if (Array.isArray(outcome)) {
        // kubectl moving from client-side to server-side apply: conflicts over values it
        // applied client-side (its last-applied annotation, still live) are taken over.
        const allowed = manager === MIGRATING_MANAGER ? this.lastAppliedFields(liveBare) : undefined;
        if (!allowed) throw conflictError(outcome);
        const remaining = outcome.filter((c) => !allowed.has(c.path));
        if (remaining.length > 0) throw conflictError(remaining);
        outcome = this.merge(live, liveBare, managed, config, manager, true);
        if (Array.isArray(outcome)) throw conflictError(outcome);
      }
      return manager === MIGRATING_MANAGER ? withLastApplied(outcome, config) : outcome;
    } catch (e) {
      if (e instanceof FieldPathError) throw badRequest(e.message);
      throw e;
    }
  }

  /** The apply merge proper: the new object, or the conflicts refusing it. */
  private merge(live: KubeObject | undefined, liveBare: KubeObject, managed: ManagedFields, config: KubeObject, manager: string, force: boolean): KubeObject | Conflict[] {
    const { schema, type } = this.opts;
    // Without any recorded ownership (reset, or never tracked), what the object holds is
    // first given to a placeholder updater, so that the applier does not silently take it.
    if (live && managed.size === 0) this.recordUpdate(managed, this.emptyObject(), liveBare, BEFORE_FIRST_APPLY_MANAGER);
    let merged = merge(liveBare, config, type, schema) as KubeObject;
    const entry: ManagerEntry = { manager, operation: 'Apply', apiVersion: this.opts.apiVersion, set: this.ownable(toFieldSet(config, type, schema)) };
    if (this.opts.subresource) entry.subresource = this.opts.subresource;
    const id = managerIdentifier(entry);
    const previous = managed.get(id);
    if (previous?.time) entry.time = previous.time;
    managed.set(id, entry);
    if (previous) merged = removeFields(merged, this.released(previous.set, managed), type, schema) as KubeObject;

    const c = this.compare(liveBare, merged);
    const changed = c.modified.union(c.added);
    const conflicts: Conflict[] = [];
    for (const [otherId, other] of managed) {
      if (otherId === id) continue;
      const overlap = other.set.intersection(changed);
      for (const path of overlap.paths()) if (overlap.has(path)) conflicts.push({ entry: other, id: otherId, path });
    }
    if (conflicts.length > 0 && !force) return conflicts;
    for (const [otherId, other] of managed) {
      if (otherId === id) continue;
      other.set = other.set.difference(changed).difference(c.removed);
    }
    for (const [k, e] of managed) if (e.set.empty()) managed.delete(k);
    const changedObject = !deepEqual(liveBare, merged);
    if (changedObject || !entry.time) entry.time = rfc3339(this.opts.now());
    capUpdateManagers(managed);
    // A no-op apply hands back the live object as it is, so that nothing is written.
    if (live && !changedObject && deepEqual(encodeManagedFields(managed), live.metadata?.managedFields ?? [])) return deepCopy(live);
    return withManagedFields(merged, managed);
  }

  /** Records in `managed` what `manager` changed from `from` to `to`, as a non-apply write does. */
  private recordUpdate(managed: ManagedFields, from: KubeObject, to: KubeObject, manager: string): void {
    const c = this.compare(from, to);
    const taken = this.ownable(c.modified.union(c.added));
    if (taken.empty()) return;
    const entry: ManagerEntry = { manager, operation: 'Update', apiVersion: this.opts.apiVersion, set: taken, time: rfc3339(this.opts.now()) };
    if (this.opts.subresource) entry.subresource = this.opts.subresource;
    managed.set(managerIdentifier(entry), entry);
  }

  private emptyObject(): KubeObject {
    return this.opts.emptyObject?.() ?? {};
  }

  /**
   * The fields of the last-applied annotation of `live` whose values `live` still holds:
   * what a client-side apply set and nobody changed since. Undefined when there is no
   * readable annotation of this version.
   */
  private lastAppliedFields(live: KubeObject): FieldSet | undefined {
    const text = live.metadata?.annotations?.[lastAppliedAnnotation()];
    if (!text) return undefined;
    const { schema, type } = this.opts;
    try {
      const lastApplied: unknown = JSON.parse(text);
      if (!isPlainObject(lastApplied) || lastApplied.apiVersion !== this.opts.apiVersion) return undefined;
      if (schemaErrors(lastApplied, type, schema).length > 0) return undefined;
      const c = compare(lastApplied, live, type, schema);
      return toFieldSet(lastApplied, type, schema).difference(c.modified).difference(c.added).difference(c.removed);
    } catch {
      return undefined;
    }
  }

  /**
   * What an applier gave up and nobody owns any more, to be removed with everything below
   * it: paths of its last applied set that no manager (itself included, with what it applies
   * now) owns. A struct field counts as owned when anything under it is.
   */
  private released(lastApplied: FieldSet, managed: ManagedFields): FieldSet {
    const { schema, type } = this.opts;
    let owned = new FieldSet();
    for (const e of managed.values()) owned = owned.union(e.set);
    return withNamedFieldsAsMembers(lastApplied, type, schema).difference(withNamedFieldsAsMembers(owned, type, schema));
  }
}

/** `namespace/name; group/version, Kind=Kind`, the way Kubernetes names an object in errors. */
function describeObject(obj: KubeObject, apiVersion: string): string {
  const gv = apiVersion.includes('/') ? apiVersion : `/${apiVersion}`;
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}; ${gv}, Kind=${obj.kind ?? ''}`;
}

function joinErrors(errs: string[]): string {
  return errs.length === 1 ? errs[0] : `errors:\n  ${errs.join('\n  ')}`;
}

/** How a manager is named in conflict messages. */
function printManager(e: ManagerEntry): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s += ` using ${e.apiVersion}`;
  return s;
}

/** One field another manager owns and the apply would change. */
export interface Conflict {
  entry: ManagerEntry;
  /** The manager's identifier (managerIdentifier). */
  id: string;
  path: FieldPath;
}

/**
 * The 409 Kubernetes answers to an apply that conflicts with other managers: a cause
 * (`FieldManagerConflict`) per field, the message grouping the fields by manager.
 */
export function conflictError(conflicts: Conflict[]): ApiError {
  // Stable: the paths of one manager keep their order.
  const all = [...conflicts].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const causes: StatusCause[] = all.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.entry)}`, field: formatPath(c.path) }));
  let message: string;
  if (all.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(all[0].entry)}: ${formatPath(all[0].path)}`;
  } else {
    const lines: string[] = [];
    let last: string | undefined;
    for (const c of all) {
      if (c.id !== last) lines.push(`conflicts with ${printManager(c.entry)}:`);
      last = c.id;
      lines.push(`- ${formatPath(c.path)}`);
    }
    message = `Apply failed with ${all.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(409, 'Conflict', message, { causes });
}
