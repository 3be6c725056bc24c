// Server-side apply of custom resources: the ApplyType of a CustomResourceDefinition
// version's structural schema, read as kube-apiserver 1.27 reads it for its field manager
// (the version's OpenAPI v3 schema with the type fields and ObjectMeta added, converted to
// structured-merge-diff types):
// - an object with properties is a struct (`x-kubernetes-embedded-resource` adds
//   `apiVersion`, `kind` and `metadata`), one without is a map of its
//   `additionalProperties` (values without a schema are deduced; `additionalProperties:
//   false` admits no field); `x-kubernetes-map-type: atomic` makes either atomic;
// - `x-kubernetes-preserve-unknown-fields` lets an object, and every object below it, hold
//   fields it does not declare, deduced (objects granular, lists atomic);
// - arrays are atomic unless `x-kubernetes-list-type` is `set` or `map` (keyed by
//   `x-kubernetes-list-map-keys`, a missing key taking the key field's default);
// - a value without a type (`x-kubernetes-int-or-string`, preserved values) is deduced.
import type { JSONSchemaProps } from '../apimachinery/jsonschema.js';
import { getOwn, setOwn } from '../apimachinery/own.js';
import { ApplySchema, UNTYPED, type ApplyType, type ApplyTypeLookup } from './schema.js';

/** The catalog type of every object's metadata, embedded resources' included. */
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const SCALAR: ApplyType = { kind: 'scalar' };
/** Ids of the structs a schema declares; never an id of the catalog. */
const ID_PREFIX = '#custom-resource/';

interface StructDef {
  fields: Map<string, ApplyType>;
  /** The type of undeclared fields, when the object keeps them. */
  extra?: ApplyType;
}

/** The ApplySchema of one custom resource version: its structs, and the catalog for ObjectMeta. */
export class CustomResourceApplySchema extends ApplySchema {
  private readonly structs = new Map<string, StructDef>();
  /** The type of a whole custom resource. */
  readonly rootType: ApplyType;

  constructor(lookup: ApplyTypeLookup, schema: JSONSchemaProps | undefined) {
    super(lookup);
    // Without a schema, objects are deduced (as kube-apiserver's deduced type converter does).
    this.rootType = schema ? this.object(schema, false, true) : UNTYPED;
  }

  override field(typeId: string, name: string): ApplyType | undefined {
    const s = this.structs.get(typeId);
    return s ? s.fields.get(name) : super.field(typeId, name);
  }

  override unknownField(typeId: string): ApplyType | undefined {
    const s = this.structs.get(typeId);
    return s ? s.extra : super.unknownField(typeId);
  }

  /** The type of a value of schema `s`, below objects that keep unknown fields when `preserve`. */
  private typeOf(s: JSONSchemaProps | undefined, preserve: boolean): ApplyType {
    if (!s) return UNTYPED;
    const type = s.type ?? '';
    if (type === 'array') {
      const items = s.items;
      const item = this.typeOf(items !== undefined && !Array.isArray(items) ? items : undefined, preserve);
      const listType = s['x-kubernetes-list-type'];
      if (listType === 'set') return { kind: 'list', item, listType: 'set', keys: [] };
      if (listType === 'map') {
        const keys = [...(s['x-kubernetes-list-map-keys'] ?? [])];
        return { kind: 'list', item, listType: 'map', keys, keyDefaults: keyDefaults(items !== undefined && !Array.isArray(items) ? items : undefined, keys) };
      }
      return { kind: 'list', item, listType: 'atomic', keys: [] };
    }
    if (type === 'object' || (type === '' && hasProperties(s))) return this.object(s, preserve, false);
    if (type === '') return UNTYPED;
    return SCALAR;
  }

  private object(s: JSONSchemaProps, inheritedPreserve: boolean, root: boolean): ApplyType {
    const atomic = s['x-kubernetes-map-type'] === 'atomic';
    const embedded = s['x-kubernetes-embedded-resource'] === true;
    const preserve = inheritedPreserve || s['x-kubernetes-preserve-unknown-fields'] === true;
    if (!root && !embedded && !hasProperties(s) && (s.additionalProperties !== false || preserve)) {
      const extra = s.additionalProperties;
      const value = typeof extra === 'object' && extra !== null ? this.typeOf(extra, inheritedPreserve) : UNTYPED;
      return { kind: 'map', value, atomic };
    }
    const typeId = `${ID_PREFIX}${this.structs.size}`;
    const def: StructDef = { fields: new Map() };
    // Registered before its fields are read, so that the ids stay in the order they are made.
    this.structs.set(typeId, def);
    for (const name of Object.keys(s.properties ?? {})) {
      const prop = s.properties ? getOwn(s.properties, name) : undefined;
      def.fields.set(name, this.typeOf(prop, preserve));
    }
    if (root || embedded) {
      def.fields.set('apiVersion', SCALAR);
      def.fields.set('kind', SCALAR);
      def.fields.set('metadata', { kind: 'struct', typeId: OBJECT_META, atomic: false });
    }
    if (preserve) def.extra = UNTYPED;
    return { kind: 'struct', typeId, atomic };
  }
}

/** The defaults the item schema declares for the key fields: what an entry without them is keyed by. */
function keyDefaults(item: JSONSchemaProps | undefined, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const d = item?.properties ? getOwn(item.properties, k)?.default : undefined;
    if (d !== undefined) setOwn(out, k, d);
  }
  return out;
}

/** Go drops an empty `properties` map when it writes the schema: it is no struct. */
function hasProperties(s: JSONSchemaProps): boolean {
  return s.properties !== undefined && Object.keys(s.properties).length > 0;
}

const cache = new WeakMap<JSONSchemaProps, CustomResourceApplySchema>();

/** The (memoized) ApplySchema of a custom resource version's schema. */
export function customResourceApplySchema(lookup: ApplyTypeLookup, schema: JSONSchemaProps): CustomResourceApplySchema {
  let out = cache.get(schema);
  if (!out) {
    out = new CustomResourceApplySchema(lookup, schema);
    cache.set(schema, out);
  }
  return out;
}
