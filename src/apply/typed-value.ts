// Operations on objects read through an ApplySchema: the field set an object (or an applied
// configuration) sets, the comparison of two versions of an object, the merge of an applied
// configuration into the live object, and the removal of fields.
import { FieldSet, fieldElement, formatPath, keyElement, valueElement, indexElement, type FieldPath, type PathElement } from './fieldpath.js';
import { isGranularObject, isStructField, type ApplySchema, type ApplyType } from './schema.js';
import { getOwn, setOwn } from '../apimachinery/own.js';
import { deepEqual } from '../apimachinery/equality.js';
import { isPlainObject } from '../apimachinery/types.js';
import { deepCopy } from '../apimachinery/copy.js';

type JsonObject = Record<string, unknown>;

/**
 * Key fields the API server defaults when an entry leaves them out, so that an applied
 * entry without them names the same entry as the defaulted live one (a port's protocol).
 */
const KEY_DEFAULTS: Record<string, unknown> = { protocol: 'TCP' };

/** Thrown for values that cannot be placed in the schema (an entry without its keys). */
export class FieldPathError extends Error {}

/** The path element of a list entry, by the list's kind. */
function listItemElement(t: Extract<ApplyType, { kind: 'list' }>, item: unknown, index: number): PathElement {
  if (t.listType === 'set') {
    if (isPlainObject(item)) throw new FieldPathError("associative list without keys has an element that's a map type");
    if (Array.isArray(item)) throw new FieldPathError('not supported: associative list with lists as elements');
    if (item === null) throw new FieldPathError("associative list without keys has an element that's an explicit null");
    return valueElement(item);
  }
  if (t.listType === 'map') {
    if (item === null) throw new FieldPathError('associative list with keys may not have a null element');
    if (!isPlainObject(item)) throw new FieldPathError('associative list with keys may not have non-map elements');
    const keys: JsonObject = {};
    for (const k of t.keys) {
      const v = getOwn(item, k) ?? getOwn(t.keyDefaults ?? KEY_DEFAULTS, k);
      if (v === undefined) throw new FieldPathError(`associative list with keys has an element that omits key field "${k}" (and doesn't have default value)`);
      setOwn(keys, k, v);
    }
    return keyElement(keys);
  }
  return indexElement(index);
}

/** Entries of a keyed list by path element, the first of duplicates winning, in list order. */
function indexList(t: Extract<ApplyType, { kind: 'list' }>, list: unknown[]): Map<PathElement, unknown> {
  const out = new Map<PathElement, unknown>();
  list.forEach((item, i) => {
    const pe = listItemElement(t, item, i);
    if (!out.has(pe)) out.set(pe, item);
  });
  return out;
}

function isEmptyContainer(v: unknown): boolean {
  return v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);
}

// ---------------------------------------------------------------------------------------
// The field set of a value

/** The fields a value sets: leaves, list entries, map keys, atomic values as a whole. */
export function toFieldSet(value: unknown, t: ApplyType, schema: ApplySchema): FieldSet {
  const set = new FieldSet();
  collect(value, t, schema, [], set);
  return set;
}

function collect(value: unknown, t: ApplyType, schema: ApplySchema, path: PathElement[], set: FieldSet): void {
  if (t.kind === 'list') {
    if (t.listType === 'atomic' || !Array.isArray(value)) {
      set.insert(path);
      return;
    }
    const seen = new Set<PathElement>();
    value.forEach((item, i) => {
      const pe = listItemElement(t, item, i);
      if (seen.has(pe)) return;
      seen.add(pe);
      const p = [...path, pe];
      collect(item, t.item, schema, p, set);
      set.insert(p);
    });
    return;
  }
  if (!isGranularObject(t) || !isPlainObject(value)) {
    set.insert(path);
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const p = [...path, fieldElement(k)];
    collect(v, schema.member(t, k), schema, p, set);
    if (v === null || (isPlainObject(v) && Object.keys(v).length === 0) || !isStructField(t, schema, k)) set.insert(p);
  }
}

// ---------------------------------------------------------------------------------------
// Comparison

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** What changed from `lhs` to `rhs`: leaves added, changed and removed, and containers that appeared or went. */
export function compare(lhs: unknown, rhs: unknown, t: ApplyType, schema: ApplySchema): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareAt(lhs, rhs, t, schema, [], c);
  return c;
}

function recordPresence(lhs: unknown, rhs: unknown, path: FieldPath, c: Comparison): void {
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
}

function compareAt(lhs: unknown, rhs: unknown, t: ApplyType, schema: ApplySchema, path: PathElement[], c: Comparison): void {
  if (lhs === undefined && rhs === undefined) return;
  const bothEmpty = isEmptyContainer(lhs) && isEmptyContainer(rhs);
  if (t.kind === 'list') {
    const granular = t.listType !== 'atomic' && (Array.isArray(lhs) || lhs == null) && (Array.isArray(rhs) || rhs == null);
    if (!granular || bothEmpty) return compareLeaf(lhs, rhs, path, c);
    const l = indexList(t, Array.isArray(lhs) ? lhs : []);
    const r = indexList(t, Array.isArray(rhs) ? rhs : []);
    for (const pe of new Set([...l.keys(), ...r.keys()])) compareAt(l.get(pe), r.get(pe), t.item, schema, [...path, pe], c);
    if (path.length > 0) recordPresence(lhs, rhs, path, c);
    return;
  }
  const granular = isGranularObject(t) && (isPlainObject(lhs) || lhs == null) && (isPlainObject(rhs) || rhs == null);
  if (!granular || bothEmpty) return compareLeaf(lhs, rhs, path, c);
  const l = isPlainObject(lhs) ? lhs : {};
  const r = isPlainObject(rhs) ? rhs : {};
  for (const k of new Set([...Object.keys(l), ...Object.keys(r)])) {
    compareAt(getOwn(l, k), getOwn(r, k), schema.member(t, k), schema, [...path, fieldElement(k)], c);
  }
  if (path.length > 0) recordPresence(lhs, rhs, path, c);
}

function compareLeaf(lhs: unknown, rhs: unknown, path: FieldPath, c: Comparison): void {
  if (path.length === 0) return;
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
  else if (!deepEqual(lhs, rhs)) c.modified.insert(path);
}

// ---------------------------------------------------------------------------------------
// Merge of an applied configuration into the live object

/** The live value with the configuration's values laid over it, following the schema. */
export function merge(live: unknown, config: unknown, t: ApplyType, schema: ApplySchema): unknown {
  if (config === undefined) return live;
  if (live === undefined) return deepCopy(config);
  if (t.kind === 'list') {
    if (t.listType === 'atomic' || !Array.isArray(live) || !Array.isArray(config)) return deepCopy(config);
    return mergeList(t, live, config, schema);
  }
  if (!isGranularObject(t) || !isPlainObject(config) || !isPlainObject(live)) return deepCopy(config);
  const out: JsonObject = { ...live };
  for (const [k, v] of Object.entries(config)) {
    if (v === undefined) continue;
    setOwn(out, k, merge(getOwn(live, k), v, schema.member(t, k), schema));
  }
  return out;
}

/**
 * Entries keep the live order; entries the configuration shares with the live list follow
 * the configuration's order among themselves; new entries come after the shared entry
 * they follow in the configuration.
 */
function mergeList(t: Extract<ApplyType, { kind: 'list' }>, live: unknown[], config: unknown[], schema: ApplySchema): unknown[] {
  const l = indexList(t, live);
  const r = indexList(t, config);
  const lKeys = [...l.keys()];
  const rKeys = [...r.keys()];
  const out: unknown[] = [];
  const emitted = new Set<PathElement>();
  let ri = 0;
  const emitConfigUpTo = (stop: PathElement | undefined): void => {
    while (ri < rKeys.length) {
      const pe = rKeys[ri++];
      if (!emitted.has(pe)) {
        emitted.add(pe);
        out.push(merge(l.get(pe), r.get(pe), t.item, schema));
      }
      if (pe === stop) return;
    }
  };
  for (const pe of lKeys) {
    if (emitted.has(pe)) continue;
    if (r.has(pe)) emitConfigUpTo(pe);
    else {
      emitted.add(pe);
      out.push(l.get(pe));
    }
  }
  emitConfigUpTo(undefined);
  return out;
}

// ---------------------------------------------------------------------------------------
// Removal

/**
 * The value without the members of `set`: fields deleted, list entries dropped. The key
 * fields of a list-map entry that stays are kept, since they name the entry.
 */
export function removeFields(value: unknown, set: FieldSet, t: ApplyType, schema: ApplySchema, keys: readonly string[] = []): unknown {
  if (set.empty()) return value;
  if (t.kind === 'list') {
    if (!Array.isArray(value) || t.listType === 'atomic') return value;
    const out: unknown[] = [];
    value.forEach((item, i) => {
      const child = set.children.get(listItemElement(t, item, i));
      if (!child) out.push(item);
      else if (!child.member) out.push(removeFields(item, child, t.item, schema, t.listType === 'map' ? t.keys : []));
    });
    return out;
  }
  if (!isPlainObject(value)) return value;
  const out: JsonObject = { ...value };
  for (const [pe, child] of set.children) {
    if (!pe.startsWith('f:')) continue;
    const k = pe.slice(2);
    if (!Object.hasOwn(out, k)) continue;
    if (child.member) {
      if (!keys.includes(k)) delete out[k];
    } else setOwn(out, k, removeFields(out[k], child, schema.member(t, k), schema));
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Conformance of an applied configuration to the schema

/**
 * What keeps a configuration from being read through the schema: fields the schema does not
 * declare, keyed-list entries without their keys. Messages as Kubernetes words them.
 */
export function schemaErrors(value: unknown, t: ApplyType, schema: ApplySchema): string[] {
  const errs: string[] = [];
  check(value, t, schema, [], errs);
  return errs;
}

function check(value: unknown, t: ApplyType, schema: ApplySchema, path: PathElement[], errs: string[]): void {
  if (value === null || value === undefined) return;
  if (t.kind === 'list') {
    if (!Array.isArray(value)) return;
    if (t.listType === 'atomic') {
      value.forEach((item, i) => check(item, t.item, schema, [...path, indexElement(i)], errs));
      return;
    }
    value.forEach((item, i) => {
      let pe: PathElement;
      try {
        pe = listItemElement(t, item, i);
      } catch (e) {
        errs.push(`${formatPath(path)}: element ${i}: ${e instanceof Error ? e.message : String(e)}`);
        return;
      }
      check(item, t.item, schema, [...path, pe], errs);
    });
    return;
  }
  if (!isPlainObject(value)) return;
  if (t.kind === 'struct') {
    for (const [k, v] of Object.entries(value)) {
      const p = [...path, fieldElement(k)];
      const ft = schema.field(t.typeId, k) ?? schema.unknownField(t.typeId);
      if (!ft) errs.push(`${formatPath(p)}: field not declared in schema`);
      else check(v, ft, schema, p, errs);
    }
    return;
  }
  if (t.kind === 'map') for (const [k, v] of Object.entries(value)) check(v, t.value, schema, [...path, fieldElement(k)], errs);
}

/**
 * The set with every struct field on its paths made a member: a struct field is owned
 * whenever anything under it is. Map keys and list entries stay as they are.
 */
export function withNamedFieldsAsMembers(set: FieldSet, t: ApplyType, schema: ApplySchema): FieldSet {
  const out = new FieldSet();
  out.member = set.member;
  for (const [pe, child] of set.children) {
    let childType: ApplyType = { kind: 'untyped' };
    let named = false;
    if (pe.startsWith('f:') && (t.kind === 'struct' || t.kind === 'map' || t.kind === 'untyped')) {
      const name = pe.slice(2);
      named = isStructField(t, schema, name);
      childType = schema.member(t, name);
    } else if (t.kind === 'list') childType = t.item;
    const converted = withNamedFieldsAsMembers(child, childType, schema);
    if (named) converted.member = true;
    out.children.set(pe, converted);
  }
  return out;
}

/**
 * Ownership recorded while a type was granular and read now that it is atomic: the owner of
 * anything inside owns the whole value. (Atomic to granular needs nothing: the old owner
 * keeps the top-level field.)
 */
export function reconcileWithSchema(set: FieldSet, t: ApplyType, schema: ApplySchema): FieldSet {
  const out = new FieldSet();
  out.member = set.member;
  const atomic = (t.kind === 'list' && t.listType === 'atomic') || ((t.kind === 'struct' || t.kind === 'map') && t.atomic);
  if (atomic && set.children.size > 0) {
    out.member = true;
    return out;
  }
  if (t.kind === 'untyped' || t.kind === 'scalar') return set.clone();
  for (const [pe, child] of set.children) {
    const childType = t.kind === 'list' ? t.item : pe.startsWith('f:') ? schema.member(t, pe.slice(2)) : ({ kind: 'untyped' } as const);
    out.children.set(pe, reconcileWithSchema(child, childType, schema));
  }
  return out;
}
