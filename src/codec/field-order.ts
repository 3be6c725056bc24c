// Go's encoding/json writes a struct's fields in declaration order (`kind` before
// `apiVersion`, Status `details` before `code`) and leaves out `omitempty` fields holding a
// zero value. Clients and tests compare answers as text, so JSON bodies of built-in types
// are brought into that shape before they are written. Objects are built in any order
// across the server; the check here is one pass over the keys, and only objects that are out
// of order (or hold a field Go omits) are copied.
//
// Go writes maps with their keys sorted: the map fields of built-in types (labels), and the
// whole of an object whose kind the catalog does not know (a custom resource is a map in
// kube-apiserver, so `apiVersion` comes first there).
import { isPlainObject } from '../apimachinery/types.js';
import { jsonFields, servedFieldName, typeIdForKind, type FieldDef, type TypeRef } from '../schema/index.js';
import { setOwn } from '../apimachinery/own.js';
import { flavor, type Flavor } from '../naming/index.js';

/** How a field's value is walked. */
const enum Walk {
  /** A scalar, or a value written as it was received. */
  None,
  /** A struct of the catalog. */
  One,
  /** A list of structs. */
  List,
  /** A map: keys sorted, values walked when they are structs. */
  Map,
  /** An embedded object, written as an object of its own kind. */
  Raw,
}

interface FieldPlan {
  /** Position in declaration order. */
  at: number;
  /** Go leaves the field out when it holds a zero value. */
  omit: boolean;
  walk: Walk;
  /** The struct type walked into (One, List, and Map of structs). */
  ref?: string;
  /** Its plan, once needed. */
  refPlan?: Plan;
}

/** A type's fields by JSON name; `size` is where fields the catalog does not know go. */
interface Plan {
  /** A record without prototype: V8 looks its keys up faster than a Map's. */
  fields: Record<string, FieldPlan | undefined>;
  size: number;
}

// Per flavor: a field's served name carries the flavor's extension prefix.
const plansByFlavor: Record<Flavor, Map<string, Plan>> = { orch: new Map(), kubernetes: new Map() };

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

function walkOf(id: string, type: TypeRef): { walk: Walk; ref?: string } {
  if ('ref' in type) return { walk: Walk.One, ref: type.ref };
  if ('list' in type && 'ref' in type.list) return { walk: Walk.List, ref: type.list.ref };
  if ('map' in type) return 'ref' in type.map ? { walk: Walk.Map, ref: type.map.ref } : { walk: Walk.Map };
  // Objects a list, a Table row or a watch event carries are encoded as objects; other
  // embedded objects (a ControllerRevision's data) keep the bytes the client sent.
  if ('scalar' in type && type.scalar === 'raw-extension' && id.startsWith(META)) return { walk: Walk.Raw };
  return { walk: Walk.None };
}

/** Go's omitempty drops zero strings, numbers, booleans and empty slices and maps; never structs. */
function omittable(f: FieldDef): boolean {
  if (!f.omitEmpty || f.pointer) return false;
  const t = f.type;
  if ('list' in t || 'map' in t) return true;
  if ('scalar' in t) return ['string', 'boolean', 'int32', 'int64', 'float64', 'bytes'].includes(t.scalar);
  return false;
}

function planFor(id: string): Plan {
  const plans = plansByFlavor[flavor()];
  let plan = plans.get(id);
  if (plan) return plan;
  const fields = Object.create(null) as Record<string, FieldPlan | undefined>;
  let size = 0;
  for (const f of jsonFields(id)) {
    const name = servedFieldName(f.name);
    if (fields[name] === undefined) fields[name] = { at: size++, omit: omittable(f), ...walkOf(id, f.type) };
  }
  plan = { fields, size };
  plans.set(id, plan);
  return plan;
}

function isZero(v: unknown): boolean {
  if (v === '' || v === 0 || v === false || v === null || v === 0n) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isPlainObject(v) && Object.keys(v).length === 0;
}

/** The catalog type of a value carrying `kind` and `apiVersion`, if it is a built-in one. */
function typeOf(obj: Record<string, unknown>): string | undefined {
  const { kind, apiVersion } = obj;
  if (typeof kind !== 'string' || typeof apiVersion !== 'string') return undefined;
  const slash = apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return typeIdForKind({ group, version: apiVersion.slice(slash + 1), kind });
}

/**
 * A value as Go would write it: built-in objects, lists, Status, Table and discovery
 * documents in declaration order with Go's omissions; a watch event's object likewise.
 * Returns the value itself when nothing changes.
 */
export function inGoOrder(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const id = typeOf(value);
  if (id) return ordered(value, planFor(id));
  if (typeof value.kind === 'string' && typeof value.apiVersion === 'string') return sortedDeep(value);
  // A watch event: `type` is written before `object` already; only the object may change.
  if (typeof value.type === 'string' && 'object' in value) {
    const object = inGoOrder(value.object);
    if (object === value.object && Object.keys(value)[0] === 'type') return value;
    return { type: value.type, object };
  }
  return value;
}

function ordered(obj: Record<string, unknown>, plan: Plan): Record<string, unknown> {
  let changed = false;
  let last = -1;
  let values: Map<string, unknown> | undefined;
  for (const key in obj) {
    const v = obj[key];
    const f = plan.fields[key];
    if (v === undefined || (f !== undefined && f.omit && isZero(v))) {
      changed = true;
      continue;
    }
    const at = f === undefined ? plan.size : f.at;
    if (at < last) changed = true;
    else last = at;
    if (f !== undefined && f.walk !== Walk.None && v !== null && typeof v === 'object') {
      const next = walked(v, f);
      if (next !== v) (values ??= new Map()).set(key, next);
    }
  }
  if (!changed && !values) return obj;
  const keys = Object.keys(obj).filter((k) => {
    const v = obj[k];
    const f = plan.fields[k];
    return v !== undefined && !(f !== undefined && f.omit && isZero(v));
  });
  // Array.prototype.sort is stable: fields the catalog does not know keep their own order, last.
  const at = (k: string): number => plan.fields[k]?.at ?? plan.size;
  keys.sort((a, b) => at(a) - at(b));
  const out: Record<string, unknown> = {};
  for (const k of keys) setOwn(out, k, values?.has(k) ? values.get(k) : obj[k]);
  return out;
}

/** A field's value (an object or array) as Go writes it. */
function walked(v: object, f: FieldPlan): unknown {
  if (f.walk !== Walk.Raw) f.refPlan ??= f.ref === undefined ? undefined : planFor(f.ref);
  const plan = f.refPlan;
  switch (f.walk) {
    case Walk.Raw:
      return inGoOrder(v);
    case Walk.One:
      return Array.isArray(v) ? v : ordered(v as Record<string, unknown>, plan!);
    case Walk.List: {
      if (!Array.isArray(v)) return v;
      let out: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        const next = isPlainObject(item) ? ordered(item, plan!) : item;
        if (next !== item) (out ??= v.slice())[i] = next;
      }
      return out ?? v;
    }
    default: {
      if (Array.isArray(v)) return v;
      return sortedKeys(v as Record<string, unknown>, plan === undefined ? undefined : (item) => (isPlainObject(item) ? ordered(item, plan) : item));
    }
  }
}

/** A map with its keys sorted, each value passed through `each`; the map itself when nothing changes. */
function sortedKeys(v: Record<string, unknown>, each?: (item: unknown) => unknown): Record<string, unknown> {
  let changed = false;
  let last: string | undefined;
  let values: Map<string, unknown> | undefined;
  for (const k in v) {
    if (last !== undefined && k < last) changed = true;
    last = k;
    if (each) {
      const item = v[k];
      const next = each(item);
      if (next !== item) (values ??= new Map()).set(k, next);
    }
  }
  if (!changed && !values) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) setOwn(out, k, values?.has(k) ? values.get(k) : v[k]);
  return out;
}

/** Every map of a value with its keys sorted, as Go writes a `map[string]interface{}`. */
function sortedDeep(v: unknown): unknown {
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      const next = sortedDeep(item);
      if (next !== item) (out ??= v.slice())[i] = next;
    }
    return out ?? v;
  }
  return isPlainObject(v) ? sortedKeys(v, sortedDeep) : v;
}

/**
 * How one element of `value[key]` is brought into Go's shape when `value` is written by
 * `inGoOrder`: lets a list be encoded item by item with the same bytes as whole.
 */
export function goOrderOfElement(value: Record<string, unknown>, key: string): (element: unknown) => unknown {
  const id = typeOf(value);
  if (id) {
    const f = planFor(id).fields[key];
    if (f === undefined || f.walk === Walk.None) return (element) => element;
    // Every walk treats an array element by element (or not at all): one element alone walks as it would among the others.
    return (element) => (walked([element], f) as unknown[])[0];
  }
  if (typeof value.kind === 'string' && typeof value.apiVersion === 'string') return sortedDeep;
  return (element) => element;
}
