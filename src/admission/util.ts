// Helpers the built-in plugins share: the Forbidden answer Kubernetes' admission gives
// (naming the request's object, or its generateName before a name exists), resource
// matching, and typed reads of the plain JSON objects.
import { forbidden, isApiError, type ApiError } from '../apimachinery/errors.js';
import type { GroupVersionResource, KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import type { AdmissionAttributes } from './types.js';
import { setOwn } from '../apimachinery/own.js';
import { isPlainObject } from '../apimachinery/types.js';

/** The name admission errors speak of: the request's, or the object's (generateName before a name exists). */
function admissionName(attrs: AdmissionAttributes): string {
  if (attrs.name) return attrs.name;
  const meta = attrs.object?.metadata;
  return meta?.name || meta?.generateName || 'Unknown';
}

/** `<resource> "<name>" is forbidden: <reason>` for the request's resource. */
export function admissionForbidden(attrs: AdmissionAttributes, reason: string): ApiError {
  return forbidden({ group: attrs.resource.group, resource: attrs.resource.resource }, admissionName(attrs), reason);
}

/** Whether the request is for the main resource (no subresource) `group/resource`. */
export function isResource(attrs: AdmissionAttributes, group: string, resource: string, subresource = ''): boolean {
  return attrs.resource.group === group && attrs.resource.resource === resource && attrs.subresource === subresource;
}

export type JsonMap = Record<string, unknown>;

/** The array of maps at `obj[key]` (entries that are not maps are skipped); [] when absent. */
export function mapsAt(obj: JsonMap | undefined, key: string): JsonMap[] {
  const v = obj?.[key];
  return Array.isArray(v) ? v.filter(isPlainObject) : [];
}

export function stringAt(obj: JsonMap | undefined, key: string): string | undefined {
  const v = obj?.[key];
  return typeof v === 'string' ? v : undefined;
}

/** The string map at `obj[key]` (non-string values dropped). */
export function stringMapAt(obj: JsonMap | undefined, key: string): Record<string, string> {
  const v = obj?.[key];
  const out: Record<string, string> = {};
  if (isPlainObject(v)) for (const [k, x] of Object.entries(v)) if (typeof x === 'string') setOwn(out, k, x);
  return out;
}

export function specOf(obj: KubeObject | undefined): JsonMap | undefined {
  const spec = obj?.spec;
  return isPlainObject(spec) ? spec : undefined;
}

/** Reads an object, answering undefined when it does not exist. */
export async function getOrUndefined(client: ApiClient, r: GroupVersionResource, namespace: string, name: string): Promise<KubeObject | undefined> {
  try {
    return await client.get(r, namespace, name);
  } catch (err) {
    if (isApiError(err) && err.code === 404) return undefined;
    throw err;
  }
}
