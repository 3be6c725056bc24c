// What strategic merge patch needs to know about a type: for a field of a struct, its patch
// strategies, merge key and the type of its value. `PatchSchema` keeps that to two lookups so
// that the real catalog and small hand-written fixtures serve equally.

import { CUSTOM_RESOURCE_PATCH_TYPES, unsupportedPatchType } from './media-types.js';
import type { FieldDef, ScalarType, TypeDef, TypeRef } from '../schema/catalog-types.js';
import type { ApiError } from '../apimachinery/errors.js';

export interface PatchSchema {
  /** Catalog id of the document's type, e.g. `io.k8s.api.apps.v1.Deployment`. */
  readonly rootType: string;
  /** The field of struct `typeId` with JSON name `name`, members of inline structs included. */
  field(typeId: string, name: string): FieldDef | undefined;
  /** Whether `typeId` is a known struct type. */
  hasType(typeId: string): boolean;
}

/** The minimum of a catalog that a PatchSchema is built on. */
export interface TypeLookup {
  lookupType(id: string): TypeDef | undefined;
}

/** A PatchSchema over any catalog-shaped lookup (the real catalog or a test fixture). */
export function patchSchemaFor(lookup: TypeLookup, rootType: string): PatchSchema {
  const flattened = new Map<string, Map<string, FieldDef>>();
  const fieldsOf = (id: string): Map<string, FieldDef> => {
    let fields = flattened.get(id);
    if (fields) return fields;
    fields = new Map();
    flattened.set(id, fields);
    for (const f of lookup.lookupType(id)?.fields ?? []) {
      if (f.inline && 'ref' in f.type) {
        for (const [name, inner] of fieldsOf(f.type.ref)) if (!fields.has(name)) fields.set(name, inner);
      } else if (!fields.has(f.name)) {
        fields.set(f.name, f);
      }
    }
    return fields;
  };
  return {
    rootType,
    field: (typeId, name) => fieldsOf(typeId).get(name),
    hasType: (typeId) => {
      const def = lookup.lookupType(typeId);
      return def !== undefined && def.scalar === undefined;
    },
  };
}

/**
 * Whether a type can take a strategic merge patch: every built-in type of the catalog can,
 * whatever its fields; custom resources (absent from the catalog) cannot.
 */
export function supportsStrategicMergePatch(lookup: TypeLookup, typeId: string | undefined): boolean {
  if (!typeId) return false;
  const def = lookup.lookupType(typeId);
  return def !== undefined && def.scalar === undefined;
}

/**
 * The 415 a PATCH with `application/strategic-merge-patch+json` gets on a kind without
 * strategic information: the media types such a resource does accept.
 */
export function strategicMergePatchNotSupported(): ApiError {
  return unsupportedPatchType(CUSTOM_RESOURCE_PATCH_TYPES);
}

/**
 * Where an object value sits, for merging its members: a struct of the schema, a map of one
 * value type, or a value whose Go type has no JSON fields of its own (raw extensions, field
 * sets, int-or-string, ...). In the last two, a member cannot be looked up, which only matters
 * when both sides hold an object or a list there.
 */
export type ObjectContext =
  | { kind: 'struct'; typeId: string }
  | { kind: 'map'; value: TypeRef }
  | { kind: 'opaque'; goStruct?: string; goKind: string };

const OPAQUE_STRUCTS: Partial<Record<ScalarType, string>> = {
  'raw-extension': 'RawExtension',
  'fields-v1': 'FieldsV1',
  json: 'JSON',
  'int-or-string': 'IntOrString',
  quantity: 'Quantity',
  time: 'Time',
  'micro-time': 'MicroTime',
  duration: 'Duration',
};

const GO_KINDS: Partial<Record<ScalarType, string>> = { boolean: 'bool', bytes: 'slice' };

export function objectContext(type: TypeRef): ObjectContext {
  if ('ref' in type) return { kind: 'struct', typeId: type.ref };
  if ('map' in type) return { kind: 'map', value: type.map };
  if ('list' in type) return { kind: 'opaque', goKind: 'slice' };
  const goStruct = OPAQUE_STRUCTS[type.scalar];
  return goStruct ? { kind: 'opaque', goStruct, goKind: 'struct' } : { kind: 'opaque', goKind: GO_KINDS[type.scalar] ?? type.scalar };
}

/** The Go name of a catalog type, as Kubernetes' lookup errors print it: `PodSpec`. */
export function goStructName(typeId: string): string {
  const dot = typeId.lastIndexOf('.');
  return dot < 0 ? typeId : typeId.slice(dot + 1);
}
