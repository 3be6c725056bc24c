// OpenAPI schemas of catalog types, for Swagger 2.0 (`#/definitions/`) and OpenAPI 3
// (`#/components/schemas/`), with the running flavor's definition names, group names
// and extension names.

import { domain, extension, fromKubernetesGroup } from '../../naming/index.js';
import { jsonFields, lookupType, servedFieldName } from '../catalog.js';
import type { FieldDef, ScalarType, TypeRef } from '../catalog-types.js';

export type JsonSchema = Record<string, unknown>;
type OpenApiVersion = 2 | 3;

const UPSTREAM_ID_PREFIX = 'io.k8s.';

/** Ids of the definitions that stand for the scalar types with a custom JSON form. */
const SCALAR_DEFINITIONS: Partial<Record<ScalarType, { id: string; schema: JsonSchema }>> = {
  quantity: { id: 'io.k8s.apimachinery.pkg.api.resource.Quantity', schema: { type: 'string' } },
  'int-or-string': { id: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString', schema: { type: 'string', format: 'int-or-string' } },
  time: { id: 'io.k8s.apimachinery.pkg.apis.meta.v1.Time', schema: { type: 'string', format: 'date-time' } },
  'micro-time': { id: 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime', schema: { type: 'string', format: 'date-time' } },
  'raw-extension': { id: 'io.k8s.apimachinery.pkg.runtime.RawExtension', schema: { type: 'object' } },
  'fields-v1': { id: 'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1', schema: { type: 'object' } },
};

/**
 * Ids of custom resource kinds carry this prefix before their definition name, which is
 * the user's and never renamed (catalog ids never have it).
 */
export const CUSTOM_ID_PREFIX = 'custom:';

/** `io.k8s.api.core.v1.Pod` is served as `io.orch.api.core.v1.Pod` in the orch flavor. */
function definitionName(id: string): string {
  if (id.startsWith(CUSTOM_ID_PREFIX)) return id.slice(CUSTOM_ID_PREFIX.length);
  if (!id.startsWith(UPSTREAM_ID_PREFIX)) return id;
  return `${domain().split('.').reverse().join('.')}.${id.slice(UPSTREAM_ID_PREFIX.length)}`;
}

export function refTo(id: string, version: OpenApiVersion): JsonSchema {
  const base = version === 2 ? '#/definitions/' : '#/components/schemas/';
  return { $ref: `${base}${definitionName(id)}` };
}

function scalarSchema(scalar: ScalarType, version: OpenApiVersion): JsonSchema {
  const special = SCALAR_DEFINITIONS[scalar];
  if (special) return refTo(special.id, version);
  switch (scalar) {
    case 'string':
    case 'duration':
      return { type: 'string' };
    case 'boolean':
      return { type: 'boolean' };
    case 'int32':
      return { type: 'integer', format: 'int32' };
    case 'int64':
      return { type: 'integer', format: 'int64' };
    case 'float64':
      return { type: 'number', format: 'double' };
    case 'bytes':
      return { type: 'string', format: 'byte' };
    default:
      // Any JSON value: no type, which OpenAPI readers treat as arbitrary.
      return version === 3 ? { [extension('preserve-unknown-fields')]: true } : {};
  }
}

function typeSchema(t: TypeRef, version: OpenApiVersion): JsonSchema {
  if ('scalar' in t) return scalarSchema(t.scalar, version);
  if ('ref' in t) return refTo(t.ref, version);
  if ('list' in t) return { type: 'array', items: typeSchema(t.list, version) };
  return { type: 'object', additionalProperties: typeSchema(t.map, version) };
}

function fieldSchema(f: FieldDef, version: OpenApiVersion): JsonSchema {
  let s = typeSchema(f.type, version);
  if ('ref' in f.type && version === 3) {
    // OpenAPI 3 cannot put siblings next to $ref; Kubernetes wraps references in allOf.
    s = { allOf: [s] };
    if (!f.pointer) s.default = {};
  }
  if (f.enum) {
    if ('list' in f.type && f.type.list && 'scalar' in f.type.list) s = { ...s, items: { ...(s.items as JsonSchema), enum: f.enum } };
    else if ('scalar' in f.type) s.enum = f.enum;
  }
  if (f.listType) s[extension('list-type')] = f.listType;
  if (f.listMapKeys) s[extension('list-map-keys')] = f.listMapKeys;
  if (f.mapType) s[extension('map-type')] = f.mapType;
  if (f.patchMergeKey) s[extension('patch-merge-key')] = f.patchMergeKey;
  if (f.patchStrategy) s[extension('patch-strategy')] = f.patchStrategy.join(',');
  return s;
}

/** The schema of one catalog type, as a definition. */
function definitionSchema(id: string, version: OpenApiVersion): JsonSchema {
  const def = lookupType(id);
  if (!def) return { type: 'object' };
  if (def.scalar) return scalarSchema(def.scalar, version);
  const fields = jsonFields(id);
  const schema: JsonSchema = { type: 'object' };
  if (fields.length > 0) {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const f of [...fields].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const name = servedFieldName(f.name);
      properties[name] = fieldSchema(f, version);
      if (f.required) required.push(name);
    }
    schema.properties = properties;
    if (required.length > 0) schema.required = required;
  }
  if (def.structType === 'atomic') schema[extension('map-type')] = 'atomic';
  if (def.kinds?.length) {
    schema[extension('group-version-kind')] = def.kinds.map((k) => ({
      group: fromKubernetesGroup(k.group),
      kind: k.kind,
      version: k.version,
    }));
  }
  return schema;
}

/** Every catalog id and scalar definition reachable from the given type ids. */
export function reachableIds(roots: Iterable<string>): Set<string> {
  const seen = new Set<string>();
  const visitType = (t: TypeRef): void => {
    if ('ref' in t) visit(t.ref);
    else if ('list' in t) visitType(t.list);
    else if ('map' in t) visitType(t.map);
    else {
      const special = SCALAR_DEFINITIONS[t.scalar];
      if (special) seen.add(special.id);
    }
  };
  const visit = (id: string): void => {
    if (seen.has(id) || !lookupType(id)) return;
    seen.add(id);
    for (const f of jsonFields(id)) visitType(f.type);
  };
  for (const r of roots) visit(r);
  return seen;
}

/** Definitions for the given ids (catalog types and scalar stand-ins), sorted by name. */
export function definitionsFor(ids: Iterable<string>, version: OpenApiVersion): Record<string, JsonSchema> {
  const scalarById = new Map(Object.values(SCALAR_DEFINITIONS).map((d) => [d!.id, d!.schema]));
  const entries: [string, JsonSchema][] = [];
  for (const id of ids) {
    const scalar = scalarById.get(id);
    entries.push([definitionName(id), scalar ? { ...scalar } : definitionSchema(id, version)]);
  }
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return Object.fromEntries(entries);
}
