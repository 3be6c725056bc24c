// The published schemas of a custom resource version, as kube-apiserver's CRD OpenAPI
// builder makes them: the structural part of the CRD schema with `int-or-string` unfolded,
// `metadata` replaced by a reference to ObjectMeta, `apiVersion` and `kind` added, embedded
// resources given their type and object metadata, and a list kind. OpenAPI v2 further
// drops what kubectl 1.27 cannot read in a Swagger 2.0 schema (junctors, `nullable`,
// properties and items under `x-kubernetes-preserve-unknown-fields`).

import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import { getOwn, setOwn } from '../../apimachinery/own.js';
import { extension } from '../../naming/index.js';
import { CUSTOM_ID_PREFIX, refTo, type JsonSchema } from './definitions.js';

type OpenApiVersion = 2 | 3;

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const OBJECT_META = `${META}.ObjectMeta`;
export const LIST_META = `${META}.ListMeta`;

const API_VERSION_DESCRIPTION =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DESCRIPTION =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const EMBEDDED_API_VERSION_DESCRIPTION =
  'apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const EMBEDDED_KIND_DESCRIPTION =
  'kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const METADATA_DESCRIPTION = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const LIST_METADATA_DESCRIPTION = 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

/** `stable.example.com` / `v1` / `CronTab` is `com.example.stable.v1.CronTab` (the group reversed). */
export function customDefinitionName(group: string, version: string, kind: string): string {
  const reversed = group.includes('.') ? group.split('.').reverse().join('.') : group;
  return `${reversed}.${version}.${kind}`;
}

/** The id operations use for a custom kind; `refTo` resolves it to the definition name. */
export function customId(group: string, version: string, kind: string): string {
  return `${CUSTOM_ID_PREFIX}${customDefinitionName(group, version, kind)}`;
}

// ---- the structural schema, unfolded and (for v2) reduced ----

/** The keywords of a structural schema that are published; everything else is dropped. */
const SCALAR_KEYWORDS = [
  'description', 'type', 'format', 'title', 'default', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum',
  'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'enum', 'maxProperties',
  'minProperties', 'required', 'nullable',
] as const;
const EXTENSIONS = [
  'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys', 'x-kubernetes-list-type', 'x-kubernetes-map-type', 'x-kubernetes-validations',
] as const;

function isIntOrStringAnyOf(list: JSONSchemaProps[] | undefined): boolean {
  return list !== undefined && list.length === 2 && list[0]!.type === 'integer' && list[1]!.type === 'string';
}

/** A copy of the structural part of a schema node and its subtree, keys in a stable order. */
function structural(s: JSONSchemaProps): JSONSchemaProps {
  const out: Record<string, unknown> = {};
  for (const k of SCALAR_KEYWORDS) {
    const v = s[k];
    // Go leaves false booleans out (`uniqueItems`, `nullable`, the exclusive bounds); a default of false stays.
    if (v === undefined || (v === false && k !== 'default')) continue;
    out[k] = v;
  }
  if (s.items !== undefined && !Array.isArray(s.items)) out.items = structural(s.items);
  if (s.properties) {
    const props: Record<string, JSONSchemaProps> = {};
    for (const name of Object.keys(s.properties).sort(byteOrder)) setOwn(props, name, structural(getOwn(s.properties, name)!));
    out.properties = props;
  }
  if (typeof s.additionalProperties === 'boolean') out.additionalProperties = s.additionalProperties;
  else if (s.additionalProperties) out.additionalProperties = structural(s.additionalProperties);
  for (const k of ['allOf', 'anyOf', 'oneOf'] as const) if (s[k]?.length) out[k] = s[k]!.map(structural);
  if (s.not) out.not = structural(s.not);
  for (const k of EXTENSIONS) {
    const v = s[k];
    if (v === undefined || v === false || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = v;
  }
  return out as JSONSchemaProps;
}

/** Children of a node that are themselves structural nodes (not junctors). */
function children(s: JSONSchemaProps): JSONSchemaProps[] {
  const out: JSONSchemaProps[] = [];
  if (s.items && !Array.isArray(s.items)) out.push(s.items);
  if (s.properties) out.push(...Object.values(s.properties));
  if (s.additionalProperties && typeof s.additionalProperties === 'object') out.push(s.additionalProperties);
  return out;
}

/** Int-or-string nodes state their two types: as `anyOf`, or as a first `allOf` when `anyOf` is taken. */
function unfold(s: JSONSchemaProps): void {
  if (s['x-kubernetes-int-or-string'] && !isIntOrStringAnyOf(s.anyOf) && !isIntOrStringAnyOf(s.allOf?.[0]?.anyOf)) {
    const both = [{ type: 'integer' }, { type: 'string' }];
    if (!s.anyOf) s.anyOf = both;
    else s.allOf = [{ anyOf: both }, ...(s.allOf ?? [])];
  }
  for (const c of children(s)) unfold(c);
}

/** What Swagger 2.0 readers (kubectl) cannot cope with, removed top-down. */
function toV2(s: JSONSchemaProps): void {
  delete s.allOf;
  delete s.anyOf;
  delete s.oneOf;
  delete s.not;
  if (s.nullable) {
    // Untyped values break kubectl when they have items or properties.
    delete s.type;
    delete s.nullable;
    delete s.items;
    delete s.properties;
  }
  if (s['x-kubernetes-preserve-unknown-fields']) {
    delete s.items;
    delete s.properties;
  }
  if (s.items === undefined && s.type === 'array') delete s.type;
  if (s['x-kubernetes-preserve-unknown-fields'] && s.type === 'object') delete s.type;
  if (s.properties && s.required) {
    const nullable = new Set(Object.entries(s.properties).filter(([, p]) => p.nullable).map(([n]) => n));
    const kept = s.required.filter((r) => !nullable.has(r));
    if (kept.length === 0) delete s.required;
    else s.required = kept;
  }
  if (typeof s.additionalProperties === 'object' && s.additionalProperties.nullable) delete s.required;
  for (const c of children(s)) toV2(c);
}

// ---- rendering: flavor's extension names, references, Kubernetes' added properties ----

function ref(id: string, version: OpenApiVersion, description: string): JsonSchema {
  return { description, ...refTo(id, version) };
}

function typeMeta(description: string): JsonSchema {
  return { description, type: 'string' };
}

/** The node as published: extension keys in the running flavor, embedded resources filled in. */
function render(s: JSONSchemaProps, version: OpenApiVersion): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'items' || k === 'additionalProperties' || k === 'not') {
      out[k] = typeof v === 'object' && v !== null ? render(v as JSONSchemaProps, version) : v;
    } else if (k === 'allOf' || k === 'anyOf' || k === 'oneOf') {
      out[k] = (v as JSONSchemaProps[]).map((x) => render(x, version));
    } else if (k === 'properties') {
      const props: JsonSchema = {};
      for (const [name, p] of Object.entries(v as Record<string, JSONSchemaProps>)) setOwn(props, name, render(p, version));
      out.properties = props;
    } else if (k.startsWith('x-kubernetes-')) {
      out[extension(k.slice('x-kubernetes-'.length))] = v;
    } else {
      out[k] = v;
    }
  }
  // In v2, a node that keeps unknown fields gets no properties: kubectl would refuse the unknown ones.
  if (s['x-kubernetes-embedded-resource'] && !(version === 2 && s['x-kubernetes-preserve-unknown-fields'])) {
    const props = { ...((out.properties as JsonSchema | undefined) ?? {}) };
    props.apiVersion = typeMeta(EMBEDDED_API_VERSION_DESCRIPTION);
    props.kind = typeMeta(EMBEDDED_KIND_DESCRIPTION);
    props.metadata = ref(OBJECT_META, version, METADATA_DESCRIPTION);
    out.properties = sortedKeys(props);
    const required = [...((out.required as string[] | undefined) ?? [])];
    if (!required.includes('kind')) required.push('kind');
    if (!required.includes('apiVersion')) required.push('apiVersion');
    out.required = required;
  }
  return out;
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedKeys(o: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const k of Object.keys(o).sort(byteOrder)) setOwn(out, k, getOwn(o, k));
  return out;
}

export interface CustomKind {
  group: string;
  version: string;
  kind: string;
  /** `spec.names.listKind`; `<kind>List` when not given. */
  listKind?: string;
  /** Plural resource name. */
  resource: string;
  /** The version's structural schema (extension keys spelled `x-kubernetes-*`). */
  schema?: JSONSchemaProps;
}

function gvk(group: string, version: string, kind: string): JsonSchema {
  return { [extension('group-version-kind')]: [{ group, kind, version }] };
}

/** The schema of the kind itself. */
export function customKindSchema(k: CustomKind, version: OpenApiVersion): JsonSchema {
  const root = k.schema;
  // Without a schema, or (v2) when the root keeps unknown fields, only the type is published:
  // any property listed would make kubectl reject the fields not listed.
  if (!root || (version === 2 && root['x-kubernetes-preserve-unknown-fields'])) {
    return { type: 'object', ...gvk(k.group, k.version, k.kind) };
  }
  const s = structural(root);
  unfold(s);
  if (version === 2) toV2(s);
  const out = render(s, version);
  const props = { ...((out.properties as JsonSchema | undefined) ?? {}) };
  props.metadata = ref(OBJECT_META, version, METADATA_DESCRIPTION);
  props.apiVersion = typeMeta(API_VERSION_DESCRIPTION);
  props.kind = typeMeta(KIND_DESCRIPTION);
  out.properties = sortedKeys(props);
  return { ...out, ...gvk(k.group, k.version, k.kind) };
}

/** The schema of the kind's list. */
export function customListSchema(k: CustomKind, version: OpenApiVersion): JsonSchema {
  const listKind = k.listKind ?? `${k.kind}List`;
  return {
    description: `${listKind} is a list of ${k.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: typeMeta(API_VERSION_DESCRIPTION),
      items: {
        description: `List of ${k.resource}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`,
        type: 'array',
        items: refTo(customId(k.group, k.version, k.kind), version),
      },
      kind: typeMeta(KIND_DESCRIPTION),
      metadata: ref(LIST_META, version, LIST_METADATA_DESCRIPTION),
    },
    ...gvk(k.group, k.version, listKind),
  };
}

/** Both definitions of a custom kind, by definition name. */
export function customDefinitions(k: CustomKind, version: OpenApiVersion): [string, JsonSchema][] {
  const listKind = k.listKind ?? `${k.kind}List`;
  return [
    [customDefinitionName(k.group, k.version, k.kind), customKindSchema(k, version)],
    [customDefinitionName(k.group, k.version, listKind), customListSchema(k, version)],
  ];
}

/**
 * The definitions of a document with those of its custom resources added, sorted by name.
 * The built-in definitions win a clash of names, as the static spec does in Kubernetes.
 */
export function withCustomDefinitions(
  definitions: Record<string, JsonSchema>,
  resources: readonly { group: string; version: string; kind: string; resource: string; customResource?: { schema?: JSONSchemaProps } }[],
  version: OpenApiVersion,
): Record<string, JsonSchema> {
  const all = new Map(Object.entries(definitions));
  for (const r of resources) {
    if (!r.customResource) continue;
    for (const [name, schema] of customDefinitions({ ...r, schema: r.customResource.schema }, version)) if (!all.has(name)) all.set(name, schema);
  }
  const out: Record<string, JsonSchema> = {};
  for (const name of [...all.keys()].sort(byteOrder)) setOwn(out, name, all.get(name)!);
  return out;
}
