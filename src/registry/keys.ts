// Storage keys: `/registry/<group or "core">/<resource>/[<namespace>/]<name>`. Versions that
// share storage (autoscaling v1 and v2, both Event APIs) share the resource prefix.
import type { ResourceDefinition } from '../rest/index.js';

export interface StorageLocation {
  group: string;
  resource: string;
}

/** The key prefix of a resource, with its trailing slash: `/registry/core/pods/`. */
export function resourcePrefix(storage: StorageLocation): string {
  return `/registry/${storage.group || 'core'}/${storage.resource}/`;
}

/** The prefix a list or watch reads: the whole resource, or one namespace of it. */
export function collectionPrefix(def: ResourceDefinition, storage: StorageLocation, namespace: string): string {
  const base = resourcePrefix(storage);
  return def.namespaced && namespace ? `${base}${namespace}/` : base;
}

export function objectKey(def: ResourceDefinition, storage: StorageLocation, namespace: string, name: string): string {
  const base = resourcePrefix(storage);
  return def.namespaced ? `${base}${namespace}/${name}` : `${base}${name}`;
}
