// Kubernetes strategic merge patch, applied on the server. Like a JSON merge patch, but a list
// whose field declares the `merge` strategy is merged element by element (objects by their
// merge key, scalars as a set), and directives in the patch steer the merge:
//
//   $patch: replace | delete          on an object: take the patch as is / clear the object
//   {$patch: delete, <key>: v}        in a merged list: remove the element with that key
//   {$patch: replace}                 in a merged list: the list becomes the patch's elements
//   $retainKeys: [names]              clear every member not named, before merging
//   $deleteFromPrimitiveList/<f>: []  remove these scalars from the merged list f
//   $setElementOrder/<f>: [...]       the order of list f's elements after the merge
//
// Failures carry the status codes and texts of kube-apiserver: malformed directives are 400,
// lists of lists 422, everything else a 500 whose message is the failure's text; a merged
// document that does not fit the kind's type (a string where a map belongs) is a 422 on
// the field `patch`.

import { badRequest, unclassifiedPatchError, unprocessablePatch } from './errors.js';
import { checkRestorable } from './restore.js';
import { clone, goFormat, goFormatString, goTypeName, jsonKind, sameGoType, type JsonObject } from './json-value.js';
import {
  goStructName,
  objectContext,
  strategicMergePatchNotSupported,
  type ObjectContext,
  type PatchSchema,
} from './strategic-schema.js';
import type { TypeRef } from '../schema/catalog-types.js';
import { setOwn } from '../apimachinery/own.js';
import { isPlainObject } from '../apimachinery/types.js';

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

interface FieldMeta {
  /** The strategy other than `retainKeys` (which only tells clients to send `$retainKeys`). */
  strategy: string;
  mergeKey: string;
  type: TypeRef;
}

/**
 * Applies a strategic merge patch to `doc`, whose type is `schema.rootType`. Returns the new
 * document; the inputs are not modified.
 */
export function applyStrategicMergePatch(doc: unknown, patch: unknown, schema: PatchSchema): unknown {
  if (!schema.hasType(schema.rootType)) throw strategicMergePatchNotSupported();
  // A JSON null patch decodes to an empty map on the server: nothing changes.
  if (patch === null) return clone(doc);
  if (!isPlainObject(patch)) {
    throw badRequest(`json: cannot unmarshal ${jsonKind(patch)} into Go value of type map[string]interface {}`);
  }
  const original = isPlainObject(doc) ? clone(doc) : {};
  const merged = new Merger(schema).mergeObject(original, clone(patch), { kind: 'struct', typeId: schema.rootType });
  checkRestorable(merged, patch, schema);
  return merged;
}

class Merger {
  constructor(private readonly schema: PatchSchema) {}

  /** Merges `patch` into `original`; both are owned by the merge and may be changed. */
  mergeObject(original: JsonObject, patch: JsonObject, ctx: ObjectContext): JsonObject {
    if (Object.hasOwn(patch, DIRECTIVE)) {
      const directive = patch[DIRECTIVE];
      if (directive === 'replace') {
        delete patch[DIRECTIVE];
        return stripDirectives(patch) as JsonObject;
      }
      if (directive === 'delete') return {};
      throw unclassifiedPatchError(`unknown patch type: ${goFormatString(directive)} in map: ${goFormat(patch)}`);
    }

    applyRetainKeys(original, patch);
    this.applyElementOrders(original, patch, ctx);

    for (const [patchKey, patchValue] of Object.entries(patch)) {
      let key = patchKey;
      let deleteList = false;
      if (patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
        key = directiveField(patchKey, DELETE_FROM_PRIMITIVE_LIST);
        deleteList = true;
      }
      if (patchValue === null) {
        delete original[key];
        continue;
      }
      const current = Object.hasOwn(original, key) ? original[key] : undefined;
      if (current === undefined || !sameGoType(current, patchValue)) {
        // A deletion list never adds anything.
        if (!deleteList) setOwn(original, key, stripDirectives(patchValue));
        continue;
      }
      if (isPlainObject(current) && isPlainObject(patchValue)) {
        const meta = this.fieldMeta(ctx, key, false);
        setOwn(original, key, meta.strategy === 'replace' ? stripDirectives(patchValue) : this.mergeObject(current, patchValue, objectContext(meta.type)));
      } else if (Array.isArray(current) && Array.isArray(patchValue)) {
        const meta = this.fieldMeta(ctx, key, true);
        setOwn(original, key, meta.strategy === 'merge' ? this.mergeList(current, patchValue, meta, deleteList) : stripDirectives(patchValue));
      } else {
        setOwn(original, key, patchValue);
      }
    }
    return original;
  }

  /** The patch facts of member `key` of an object in context `ctx`. */
  private fieldMeta(ctx: ObjectContext, key: string, forList: boolean): FieldMeta {
    if (ctx.kind !== 'struct') {
      // Kubernetes looks members up in the Go type, which fails for maps and field-less types.
      throw unclassifiedPatchError(
        ctx.kind === 'opaque' && ctx.goStruct
          ? `unable to find api field in struct ${ctx.goStruct} for the json field ${JSON.stringify(key)}`
          : `merging an object in json but data type is not struct, instead is: ${ctx.kind === 'map' ? 'map' : ctx.goKind}`,
      );
    }
    const field = this.schema.field(ctx.typeId, key);
    if (!field) {
      throw unclassifiedPatchError(
        `unable to find api field in struct ${goStructName(ctx.typeId)} for the json field ${JSON.stringify(key)}`,
      );
    }
    if (forList && !('list' in field.type)) throw unclassifiedPatchError('expected slice or array type, but got: struct');
    const others = (field.patchStrategy ?? []).filter((s) => s !== 'retainKeys' && s !== '');
    if (others.length > 1) throw unclassifiedPatchError(`unexpected patch strategy: [${(field.patchStrategy ?? []).join(' ')}]`);
    return { strategy: others[0] ?? '', mergeKey: field.patchMergeKey ?? '', type: field.type };
  }

  /** Merges two lists of a field with the `merge` strategy. */
  private mergeList(original: unknown[], patch: unknown[], meta: FieldMeta, deleteList: boolean): unknown[] {
    return this.mergeListTracked(original, patch, meta, deleteList).merged;
  }

  /**
   * Merges two lists and also returns `serverView`: the original list as Kubernetes sees it
   * afterwards when it orders `$setElementOrder`. The server merges in place, so deletions
   * shift the original's elements left and appended elements fill the freed slots; that view
   * decides where server-only elements land, and clients' expectations follow from it.
   */
  private mergeListTracked(
    original: unknown[],
    patch: unknown[],
    meta: FieldMeta,
    deleteList: boolean,
  ): { merged: unknown[]; serverView: unknown[] } {
    if (original.length === 0 && patch.length === 0) return { merged: original, serverView: original };
    const elementType = commonElementType(original, patch);

    if (elementType !== 'map[string]interface {}') {
      if (deleteList) return { merged: original.filter((v) => !patch.includes(v)), serverView: original };
      const merged = dedupe([...original, ...patch]);
      const [fromPatch, serverOnly] = partition(merged, patch, identity);
      return { merged: normalizeElementOrder(fromPatch, serverOnly, patch, original, ''), serverView: original };
    }

    const mergeKey = meta.mergeKey;
    if (!mergeKey) throw unclassifiedPatchError('cannot merge lists without merge key for struct');
    const view = new InPlaceList(original as JsonObject[]);
    let elements: JsonObject[] = [];
    let replace = false;
    for (const element of patch as JsonObject[]) {
      if (!Object.hasOwn(element, DIRECTIVE)) {
        elements.push(element);
        continue;
      }
      const directive = element[DIRECTIVE];
      if (directive === 'delete') {
        if (!Object.hasOwn(element, mergeKey)) throw noMergeKey(element, mergeKey);
        view.deleteWhere((o) => o[mergeKey] === element[mergeKey]);
      } else if (directive === 'replace') {
        // Keep going: the other directives of the list are dropped with it.
        replace = true;
      } else if (directive === 'merge') {
        throw unclassifiedPatchError('merging lists cannot yet be specified in the patch');
      } else {
        throw unclassifiedPatchError(`unknown patch type: ${goFormatString(directive)} in map: ${goFormat(element)}`);
      }
    }
    let base = view.items();
    if (replace) {
      base = elements.map((e) => stripDirectives(e) as JsonObject);
      elements = [];
    }

    const serverOrder = base.slice();
    const merged = base.slice();
    const itemContext = objectContext(listItemType(meta.type));
    for (const element of elements) {
      if (!Object.hasOwn(element, mergeKey)) throw noMergeKey(element, mergeKey);
      const at = merged.findIndex((o) => Object.hasOwn(o, mergeKey) && o[mergeKey] === element[mergeKey]);
      if (at >= 0) {
        merged[at] = this.mergeObject(merged[at], element, itemContext);
      } else {
        const added = stripDirectives(element) as JsonObject;
        merged.push(added);
        if (!replace) view.append(added);
      }
    }
    const keyOf = mergeKeyOf(mergeKey);
    const [fromPatch, serverOnly] = partition(merged, elements, keyOf);
    return {
      merged: normalizeElementOrder(fromPatch, serverOnly, elements, serverOrder, mergeKey),
      serverView: view.original(),
    };
  }

  /**
   * `$setElementOrder/<field>`: merges the field's list (when the patch has one) and puts the
   * elements named by the directive in its order, the others where they were.
   */
  private applyElementOrders(original: JsonObject, patch: JsonObject, ctx: ObjectContext): void {
    for (const directiveKey of Object.keys(patch)) {
      if (!directiveKey.startsWith(SET_ELEMENT_ORDER)) continue;
      const order = patch[directiveKey];
      delete patch[directiveKey];
      if (!Array.isArray(order)) throw badArgType('[]interface {}', order);
      const key = directiveField(directiveKey, SET_ELEMENT_ORDER);
      const inOriginal = Object.hasOwn(original, key);
      const inPatch = Object.hasOwn(patch, key);
      if (inOriginal && !Array.isArray(original[key])) throw badArgType('[]interface {}', original[key]);
      if (inPatch && !Array.isArray(patch[key])) throw badArgType('[]interface {}', patch[key]);
      const originalList = inOriginal ? (original[key] as unknown[]) : [];
      const patchList = inPatch ? (patch[key] as unknown[]) : [];
      const meta = this.fieldMeta(ctx, key, true);
      validateElementOrder(patchList, order, meta.mergeKey);

      let merged: unknown[];
      let serverOrder = originalList;
      if (inOriginal && inPatch) {
        if (meta.strategy === 'merge') {
          ({ merged, serverView: serverOrder } = this.mergeListTracked(originalList, patchList, meta, false));
        } else {
          merged = stripDirectives(patchList) as unknown[];
        }
      } else if (inOriginal) {
        merged = originalList;
      } else if (inPatch) {
        merged = stripDirectives(patchList) as unknown[];
      } else {
        continue;
      }
      delete patch[key];
      if (originalList.length === 0 && patchList.length === 0) {
        setOwn(original, key, merged);
        continue;
      }
      commonElementType(originalList, patchList);
      const keyOf = meta.mergeKey ? mergeKeyOf(meta.mergeKey) : identity;
      if (meta.mergeKey) {
        for (const item of merged) requireMergeKey(item, meta.mergeKey);
      }
      const [fromOrder, serverOnly] = partition(merged, order, keyOf);
      setOwn(original, key, normalizeElementOrder(fromOrder, serverOnly, order, serverOrder, meta.mergeKey));
    }
  }
}

/**
 * A list edited the way the server edits its decoded lists: deleting shifts the later
 * elements left within the same storage, appending writes into the freed slots until the
 * storage (as long as the original list) is full. `original()` is the original list's view.
 */
class InPlaceList {
  private readonly slots: JsonObject[];
  private length: number;
  private detached = false;

  constructor(items: JsonObject[]) {
    this.slots = items.slice();
    this.length = items.length;
  }

  deleteWhere(match: (item: JsonObject) => boolean): void {
    for (;;) {
      const at = this.slots.slice(0, this.length).findIndex(match);
      if (at < 0) return;
      for (let i = at; i < this.length - 1; i++) this.slots[i] = this.slots[i + 1];
      this.length--;
    }
  }

  append(item: JsonObject): void {
    if (this.detached || this.length >= this.slots.length) {
      this.detached = true;
      return;
    }
    this.slots[this.length++] = item;
  }

  items(): JsonObject[] {
    return this.slots.slice(0, this.length);
  }

  original(): JsonObject[] {
    return this.slots.slice();
  }
}

function listItemType(type: TypeRef): TypeRef {
  return 'list' in type ? type.list : type;
}

/** `$retainKeys`: members of the original not listed are cleared before the merge. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const retain = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(retain)) throw badRequest('invalid patch format of retainKeys');
  const keep = new Set<unknown>(retain);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER)) continue;
    // Every member the patch sets must be one that is retained.
    if (!keep.has(key)) throw badRequest('invalid patch format of retainKeys');
  }
  for (const key of Object.keys(original)) if (!keep.has(key)) delete original[key];
}

/** The field a `$deleteFromPrimitiveList/<f>` or `$setElementOrder/<f>` key names. */
function directiveField(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw badRequest(
      prefix === DELETE_FROM_PRIMITIVE_LIST ? 'invalid patch format of primitive list' : 'invalid patch format of setElementOrder list',
    );
  }
  return key.slice(slash + 1);
}

/**
 * The elements the patch lists (deletions aside) must appear in `$setElementOrder` in the
 * same relative order.
 */
function validateElementOrder(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  let items = patchList;
  if (mergeKey) {
    for (const item of patchList) if (!isPlainObject(item)) throw badArgType('map[string]interface {}', item);
    items = patchList.filter((item) => (item as JsonObject)[DIRECTIVE] !== 'delete');
  }
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p];
    if (isPlainObject(item) && Object.hasOwn(item, DIRECTIVE)) {
      p++;
      continue;
    }
    if (sameElement(item, order[o], mergeKey)) p++;
    o++;
  }
  if (p < items.length) {
    throw unclassifiedPatchError(
      `The order in patch list:\n${goFormat(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goFormat(order)}\n`,
    );
  }
}

function sameElement(a: unknown, b: unknown, mergeKey: string): boolean {
  if (!mergeKey) return a === b;
  if (!isPlainObject(a)) throw badArgType('map[string]interface {}', a);
  if (!isPlainObject(b)) throw badArgType('map[string]interface {}', b);
  if (!Object.hasOwn(a, mergeKey)) throw noMergeKey(a, mergeKey);
  if (!Object.hasOwn(b, mergeKey)) throw noMergeKey(b, mergeKey);
  return a[mergeKey] === b[mergeKey];
}

/** All elements of both lists must share one Go type, and lists of lists are refused. */
function commonElementType(...lists: unknown[][]): string {
  let type: string | undefined;
  for (const list of lists) {
    for (const item of list) {
      const t = goTypeName(item);
      if (type === undefined) {
        type = t;
        if (t === '[]interface {}') throw unprocessablePatch('lists of lists are not supported');
      } else if (t !== type) {
        throw unclassifiedPatchError(`list element types are not identical: ${goFormat(lists)}`);
      }
    }
  }
  if (type === undefined) throw unclassifiedPatchError('no elements in any of the given slices');
  return type;
}

type KeyOf = (item: unknown) => unknown;

const identity: KeyOf = (item) => item;

function mergeKeyOf(mergeKey: string): KeyOf {
  return (item) => (isPlainObject(item) ? item[mergeKey] : undefined);
}

function requireMergeKey(item: unknown, mergeKey: string): void {
  if (!isPlainObject(item)) throw badArgType('map[string]interface {}', item);
  if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
}

/** Splits `items` into those named in `by` and the others, keeping their order. */
function partition<T>(items: T[], by: unknown[], keyOf: KeyOf): [T[], T[]] {
  const named = new Set(by.filter((b) => !isPlainObject(b) || keyOf(b) !== undefined).map(keyOf));
  const inBy: T[] = [];
  const rest: T[] = [];
  for (const item of items) (named.has(keyOf(item)) ? inBy : rest).push(item);
  return [inBy, rest];
}

function dedupe(items: unknown[]): unknown[] {
  return [...new Set(items)];
}

/**
 * The final order of a merged list: the patch's elements in the patch's order, the server's
 * other elements in their old order, interleaved where the old order relates them.
 */
function normalizeElementOrder(
  fromPatch: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
): unknown[] {
  const keyOf = mergeKey ? mergeKeyOf(mergeKey) : identity;
  const sortedPatch = sortByOrder(fromPatch, patchOrder, keyOf, mergeKey);
  const sortedServer = sortByOrder(serverOnly, serverOrder, keyOf, mergeKey);
  const position = positionsIn(serverOrder, keyOf);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < sortedServer.length || j < sortedPatch.length) {
    if (j >= sortedPatch.length) out.push(sortedServer[i++]);
    else if (i >= sortedServer.length) out.push(sortedPatch[j++]);
    else {
      const left = position(sortedServer[i]);
      const right = position(sortedPatch[j]);
      // A server element goes first only when both are known to the old order and it came first.
      if (left >= 0 && right >= 0 && left < right) out.push(sortedServer[i++]);
      else out.push(sortedPatch[j++]);
    }
  }
  return out;
}

/** Position of an element's key in `list` (its first occurrence), or -1. */
function positionsIn(list: unknown[], keyOf: KeyOf): (item: unknown) => number {
  const first = new Map<unknown, number>();
  list.forEach((v, i) => {
    const key = keyOf(v);
    if (!first.has(key)) first.set(key, i);
  });
  return (item) => first.get(keyOf(item)) ?? -1;
}

/**
 * A stable sort by position in `order`, with the comparison Kubernetes uses (an element
 * missing from `order` sorts before its neighbour, which only a step-by-step insertion sort
 * reproduces). Deletion markers go last.
 */
function sortByOrder(items: unknown[], order: unknown[], keyOf: KeyOf, mergeKey: string): unknown[] {
  let sorted = items.slice();
  let deletions: unknown[] = [];
  if (mergeKey) {
    for (const item of [...items, ...order]) requireMergeKey(item, mergeKey);
    deletions = sorted.filter((item) => (item as JsonObject)[DIRECTIVE] === 'delete');
    sorted = sorted.filter((item) => (item as JsonObject)[DIRECTIVE] !== 'delete');
  }
  const position = positionsIn(order, keyOf);
  if (sorted.every((item) => position(item) >= 0)) {
    sorted.sort((a, b) => position(a) - position(b));
  } else {
    const less = (a: unknown, b: unknown): boolean => {
      const ia = position(a);
      const ib = position(b);
      return ia >= 0 && ib >= 0 ? ia < ib : true;
    };
    for (let i = 1; i < sorted.length; i++) {
      for (let j = i; j > 0 && less(sorted[j], sorted[j - 1]); j--) {
        [sorted[j], sorted[j - 1]] = [sorted[j - 1], sorted[j]];
      }
    }
  }
  return [...sorted, ...deletions];
}

/**
 * A patch value that lands in the document without a counterpart: null members are dropped
 * (as the server does), and so are directives, which only have meaning against an original.
 */
function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.filter((v) => !(isPlainObject(v) && Object.hasOwn(v, DIRECTIVE))).map(stripDirectives);
  }
  if (!isPlainObject(value)) return value;
  if (value[DIRECTIVE] === 'delete') return {};
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === null || isDirectiveKey(key)) continue;
    setOwn(out, key, stripDirectives(v));
  }
  return out;
}

function isDirectiveKey(key: string): boolean {
  return (
    key === DIRECTIVE || key === RETAIN_KEYS || key.startsWith(SET_ELEMENT_ORDER) || key.startsWith(DELETE_FROM_PRIMITIVE_LIST)
  );
}

function noMergeKey(item: JsonObject, mergeKey: string) {
  return unclassifiedPatchError(`map: ${goFormat(item)} does not contain declared merge key: ${mergeKey}`);
}

function badArgType(expected: string, actual: unknown) {
  return unclassifiedPatchError(`expected a ${expected}, but received a ${goTypeName(actual)}`);
}
