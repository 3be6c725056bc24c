// Loads the committed schema catalog once, on first use, and answers the questions the
// other layers ask of it: which type a kind is, what a type's fields are.

import { readFileSync } from 'node:fs';
import { dataFilePath } from '../apimachinery/data-file.js';
import { extension, toKubernetesGroup } from '../naming/index.js';
import type { Catalog, FieldDef, TypeDef } from './catalog-types.js';

const CATALOG_FILE = 'catalog.json';

let catalog: Catalog | undefined;
let kindIndex: Map<string, string> | undefined;
const flatFields = new Map<string, FieldDef[]>();

export function getCatalog(): Catalog {
  catalog ??= JSON.parse(readFileSync(dataFilePath(import.meta.url, 'schema', CATALOG_FILE), 'utf8')) as Catalog;
  return catalog;
}

function gvkKey(group: string, version: string, kind: string): string {
  return `${group}/${version}/${kind}`;
}

/**
 * The catalog type of a kind. `group` is the served group name of the running flavor
 * (`rbac.authorization.orch.io`); the catalog keeps upstream names.
 */
export function typeIdForKind(gvk: { group: string; version: string; kind: string }): string | undefined {
  if (!kindIndex) {
    kindIndex = new Map();
    for (const def of Object.values(getCatalog().types)) {
      for (const k of def.kinds ?? []) kindIndex.set(gvkKey(k.group, k.version, k.kind), def.id);
    }
  }
  return kindIndex.get(gvkKey(toKubernetesGroup(gvk.group), gvk.version, gvk.kind));
}

export function lookupType(id: string): TypeDef | undefined {
  return getCatalog().types[id];
}

/**
 * A type's fields as they appear in JSON: fields of embedded (`inline`) structs are
 * expanded in place. Protobuf readers want `TypeDef.fields` instead, where an inline
 * field keeps its own message number.
 */
export function jsonFields(id: string): FieldDef[] {
  const cached = flatFields.get(id);
  if (cached) return cached;
  const def = lookupType(id);
  const out: FieldDef[] = [];
  for (const f of def?.fields ?? []) {
    if (f.inline && 'ref' in f.type) out.push(...jsonFields(f.type.ref));
    else out.push(f);
  }
  flatFields.set(id, out);
  return out;
}

const UPSTREAM_EXTENSION_PREFIX = 'x-kubernetes-';

/**
 * The JSON name a field is served under in the running flavor. Only the schema-extension
 * fields of CustomResourceDefinition schemas (`x-kubernetes-list-type`) differ.
 */
export function servedFieldName(name: string): string {
  return name.startsWith(UPSTREAM_EXTENSION_PREFIX) ? extension(name.slice(UPSTREAM_EXTENSION_PREFIX.length)) : name;
}
