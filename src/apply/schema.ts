// What server-side apply needs to know about a value's type: whether it is a leaf, a struct
// or map to descend into field by field, or a list that is atomic, a set or a map keyed by
// some of its entries' fields. Read from the schema catalog: list types and keys first, the
// legacy strategic-merge markers (`patchStrategy: merge` with a merge key) as the fallback,
// atomic maps and structs. Values without a schema (custom resources without one) are
// deduced: objects are descended into, lists are atomic. Custom resources with a schema read
// it through a subclass (custom-resource.ts).
import type { FieldDef, TypeDef, TypeRef } from '../schema/catalog-types.js';

export type ApplyType =
  | { kind: 'scalar' }
  | { kind: 'untyped' }
  | { kind: 'struct'; typeId: string; atomic: boolean }
  | { kind: 'map'; value: ApplyType; atomic: boolean }
  | {
      kind: 'list';
      item: ApplyType;
      listType: 'atomic' | 'set' | 'map';
      keys: string[];
      /** Values of key fields an entry may leave out (a custom resource schema's defaults); the built-in ones otherwise. */
      keyDefaults?: Record<string, unknown>;
    };

/** The minimum of a catalog the apply schema reads. */
export interface ApplyTypeLookup {
  lookupType(id: string): TypeDef | undefined;
}

function scalarZero(t: string): unknown {
  switch (t) {
    case 'string':
      return '';
    case 'boolean':
      return false;
    case 'int32':
    case 'int64':
    case 'float64':
      return 0;
    case 'int-or-string':
      return 0;
    case 'quantity':
      return '0';
    default:
      return null;
  }
}

export const UNTYPED: ApplyType = { kind: 'untyped' };
const SCALAR: ApplyType = { kind: 'scalar' };

/** Scalar types whose JSON may be any value: descended into like values without a schema. */
const FREE_FORM = new Set(['raw-extension', 'json', 'fields-v1']);

export class ApplySchema {
  private readonly fields = new Map<string, Map<string, FieldDef>>();

  constructor(private readonly lookup: ApplyTypeLookup) {}

  /** The type of a whole object of catalog type `typeId`, or untyped when unknown. */
  root(typeId: string | undefined): ApplyType {
    if (!typeId) return UNTYPED;
    return this.ofRef({ ref: typeId });
  }

  /** The type of field `name` of a struct, or undefined when the struct has no such field. */
  field(typeId: string, name: string): ApplyType | undefined {
    const f = this.fieldsOf(typeId).get(name);
    return f ? this.ofField(f) : undefined;
  }

  /**
   * The type of the fields a struct does not declare, when it keeps them (a custom resource
   * object with `x-kubernetes-preserve-unknown-fields`); undefined when it has none.
   */
  unknownField(typeId: string): ApplyType | undefined {
    void typeId;
    return undefined;
  }

  private fieldsOf(typeId: string): Map<string, FieldDef> {
    let fields = this.fields.get(typeId);
    if (fields) return fields;
    fields = new Map();
    this.fields.set(typeId, fields);
    for (const f of this.lookup.lookupType(typeId)?.fields ?? []) {
      if (f.inline && 'ref' in f.type) {
        for (const [n, inner] of this.fieldsOf(f.type.ref)) if (!fields.has(n)) fields.set(n, inner);
      } else if (!fields.has(f.name)) fields.set(f.name, f);
    }
    return fields;
  }

  private ofField(f: FieldDef): ApplyType {
    const t = f.type;
    if ('list' in t) {
      const item = this.ofRef(t.list);
      if (f.listType === 'map') return { kind: 'list', item, listType: 'map', keys: f.listMapKeys ?? [] };
      if (f.listType === 'set' || f.listType === 'atomic') return { kind: 'list', item, listType: f.listType, keys: [] };
      if (f.patchStrategy?.includes('merge')) {
        if (f.patchMergeKey) return { kind: 'list', item, listType: 'map', keys: [f.patchMergeKey] };
        if (item.kind === 'scalar') return { kind: 'list', item, listType: 'set', keys: [] };
      }
      return { kind: 'list', item, listType: 'atomic', keys: [] };
    }
    const resolved = this.ofRef(t);
    if (f.mapType === 'atomic' && (resolved.kind === 'map' || resolved.kind === 'struct')) return { ...resolved, atomic: true };
    return resolved;
  }

  private ofRef(t: TypeRef): ApplyType {
    if ('scalar' in t) return FREE_FORM.has(t.scalar) ? UNTYPED : SCALAR;
    if ('list' in t) return { kind: 'list', item: this.ofRef(t.list), listType: 'atomic', keys: [] };
    if ('map' in t) return { kind: 'map', value: this.ofRef(t.map), atomic: false };
    const def = this.lookup.lookupType(t.ref);
    if (!def) return UNTYPED;
    if (def.scalar) return FREE_FORM.has(def.scalar) ? UNTYPED : SCALAR;
    return { kind: 'struct', typeId: def.id, atomic: def.structType === 'atomic' };
  }

  /**
   * The JSON of a struct's Go zero value: fields without `omitempty` are present, nested
   * structs (always, as Go writes them) as objects and slices, maps, pointers and times as null. It is what a create is
   * compared against, so that only fields the request adds count as added.
   */
  zeroValue(typeId: string, depth = 0): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (depth > 32) return out;
    for (const f of this.fieldsOf(typeId).values()) {
      const t = f.type;
      // Go's encoder never leaves out a struct that is not behind a pointer, omitempty or not.
      const struct = 'ref' in t && !f.pointer && this.lookup.lookupType(t.ref)?.scalar === undefined;
      if (f.omitEmpty && !struct) continue;
      if (f.pointer || 'list' in t || 'map' in t) out[f.name] = null;
      else if ('ref' in t) {
        const def = this.lookup.lookupType(t.ref);
        if (def?.scalar) out[f.name] = scalarZero(def.scalar);
        else if (def) out[f.name] = this.zeroValue(def.id, depth + 1);
      } else out[f.name] = scalarZero(t.scalar);
    }
    return out;
  }

  /** The type of member `name` of an object-valued node. */
  member(t: ApplyType, name: string): ApplyType {
    if (t.kind === 'struct') return this.field(t.typeId, name) ?? this.unknownField(t.typeId) ?? UNTYPED;
    if (t.kind === 'map') return t.value;
    return UNTYPED;
  }
}

/** Whether values of this type are descended into member by member. */
export function isGranularObject(t: ApplyType): boolean {
  return t.kind === 'untyped' || ((t.kind === 'struct' || t.kind === 'map') && !t.atomic);
}

/** Struct fields are owned through their leaves; map keys (and keys of untyped objects) are owned themselves. */
export function isStructField(t: ApplyType, schema: ApplySchema, name: string): boolean {
  return t.kind === 'struct' && schema.field(t.typeId, name) !== undefined;
}
