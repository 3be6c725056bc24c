// What Go's JSON encoder writes for fields a decoded object left empty: a struct field that
// is not a pointer is never left out (`omitempty` does not apply to structs), so it reads
// `{}`, and a `metav1.Time` or `MicroTime` that is not a pointer reads `null`. This is why
// Kubernetes answers `resources: {}`, `status: {}` and a pod template's
// `creationTimestamp: null`. A field without `omitempty` is always written too: optionally,
// absent strings, numbers and booleans of that kind become "", 0 and false
// (`reportingComponent: ""` on events, `replicas: 0` in a ReplicaSet's status). Lists and maps
// (written as null) are left absent. Filling these in keeps stored objects in that form.

import { jsonFields, lookupType, servedFieldName, typeIdForKind } from './catalog.js';
import type { TypeRef } from './catalog-types.js';
import { isPlainObject } from '../apimachinery/types.js';

/** A catalog struct with fields (not a scalar alias, not an opaque JSON type). */
function isStruct(id: string): boolean {
  const def = lookupType(id);
  return def !== undefined && def.scalar === undefined && def.fields.length > 0;
}

export interface FillOptions {
  /** Also write absent non-`omitempty` strings, numbers and booleans as their zero value. */
  scalars?: boolean;
}

const SCALAR_ZERO: Partial<Record<string, unknown>> = { string: '', int32: 0, int64: 0, float64: 0, boolean: false };

function fillStruct(obj: Record<string, unknown>, typeId: string, open: Set<string>, opts: FillOptions): void {
  // A type that contains itself (JSON schemas) is only walked where values exist.
  if (open.has(typeId)) return;
  open.add(typeId);
  for (const f of jsonFields(typeId)) {
    const name = servedFieldName(f.name);
    const value = obj[name];
    if (value === undefined || value === null) {
      if (f.pointer) continue;
      if ('ref' in f.type && isStruct(f.type.ref)) {
        const filled: Record<string, unknown> = {};
        obj[name] = filled;
        fillStruct(filled, f.type.ref, open, opts);
      } else if ('scalar' in f.type && (f.type.scalar === 'time' || f.type.scalar === 'micro-time')) {
        obj[name] = null;
      } else if (opts.scalars && value === undefined && !f.omitEmpty && 'scalar' in f.type && SCALAR_ZERO[f.type.scalar] !== undefined) {
        obj[name] = SCALAR_ZERO[f.type.scalar];
      }
      continue;
    }
    fillValue(value, f.type, open, opts);
  }
  open.delete(typeId);
}

function fillValue(value: unknown, type: TypeRef, open: Set<string>, opts: FillOptions): void {
  if ('ref' in type) {
    if (isPlainObject(value) && isStruct(type.ref)) fillStruct(value, type.ref, open, opts);
  } else if ('list' in type) {
    if (Array.isArray(value)) for (const item of value) fillValue(item, type.list, open, opts);
  } else if ('map' in type) {
    if (isPlainObject(value)) for (const item of Object.values(value)) fillValue(item, type.map, open, opts);
  }
}

/**
 * Adds, in place, the empty structs and null times Go would write for `obj` of kind `gvk`
 * (served group name of the running flavor). Kinds outside the catalog are left as they are.
 */
export function fillGoEncodedZeroValues(obj: unknown, gvk: { group: string; version: string; kind: string }, opts: FillOptions = {}): void {
  const typeId = typeIdForKind(gvk);
  if (typeId && isPlainObject(obj) && isStruct(typeId)) fillStruct(obj, typeId, new Set(), opts);
}
