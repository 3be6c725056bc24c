// Pruning: fields the structural schema does not declare are dropped, as apiextensions does
// when it decodes a custom resource. `apiVersion`, `kind` and `metadata` of the resource and
// of embedded resources are kept; `x-kubernetes-preserve-unknown-fields` keeps everything
// below it that no schema describes, while declared fields below it are still pruned.
import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import { getOwn } from '../../apimachinery/own.js';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

function asSchema(v: unknown): JSONSchemaProps | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JSONSchemaProps) : undefined;
}

function isMap(x: unknown): x is Record<string, unknown> {
  return x !== null && typeof x === 'object' && !Array.isArray(x);
}

function childPath(parent: string, k: string): string {
  return parent ? `${parent}.${k}` : k;
}

/**
 * The schema of a member: a declared property, or what `additionalProperties` says (`null`
 * when it is a boolean: Kubernetes then prunes every field below). Undefined: not allowed.
 */
function memberSchema(s: JSONSchemaProps, k: string): JSONSchemaProps | null | undefined {
  const props = asSchema(s.properties) as Record<string, JSONSchemaProps> | undefined;
  const declared = props ? getOwn(props, k) : undefined;
  if (declared !== undefined) return asSchema(declared) ?? null;
  if (s.additionalProperties === undefined || s.additionalProperties === null) return undefined;
  return asSchema(s.additionalProperties) ?? null;
}

function prune(x: unknown, s: JSONSchemaProps | null, embedded: boolean, path: string, removed: string[]): void {
  if (s && s['x-kubernetes-preserve-unknown-fields'] === true) {
    skipPrune(x, s, embedded, path, removed);
    return;
  }
  if (isMap(x)) {
    for (const k of Object.keys(x)) {
      if (s && embedded && META_FIELDS.has(k)) continue;
      const sub = s ? memberSchema(s, k) : undefined;
      if (sub !== undefined) {
        prune(x[k], sub, sub?.['x-kubernetes-embedded-resource'] === true, childPath(path, k), removed);
      } else {
        if (!META_FIELDS.has(k) || path !== '') removed.push(childPath(path, k));
        delete x[k];
      }
    }
  } else if (Array.isArray(x)) {
    const items = s ? (asSchema(s.items) ?? null) : null;
    for (let i = 0; i < x.length; i++) prune(x[i], items, items?.['x-kubernetes-embedded-resource'] === true, `${path}[${i}]`, removed);
  }
}

function skipPrune(x: unknown, s: JSONSchemaProps, embedded: boolean, path: string, removed: string[]): void {
  if (isMap(x)) {
    for (const k of Object.keys(x)) {
      if (embedded && META_FIELDS.has(k)) continue;
      const sub = memberSchema(s, k);
      if (sub !== undefined) prune(x[k], sub, sub?.['x-kubernetes-embedded-resource'] === true, childPath(path, k), removed);
    }
  } else if (Array.isArray(x)) {
    const items = asSchema(s.items);
    if (!items) return;
    for (let i = 0; i < x.length; i++) skipPrune(x[i], items, items['x-kubernetes-embedded-resource'] === true, `${path}[${i}]`, removed);
  }
}

/** Prunes `obj` (a resource: its root keeps apiVersion, kind and metadata); returns the removed paths, sorted. */
export function pruneResource(obj: Record<string, unknown>, schema: JSONSchemaProps): string[] {
  const removed: string[] = [];
  prune(obj, schema, true, '', removed);
  // Sorted by bytes, as Go sorts strings.
  return removed.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Removes `null`s of fields that are neither nullable nor defaulted, as Kubernetes does after pruning. */
export function pruneNonNullableNulls(x: unknown, s: JSONSchemaProps | undefined): void {
  // Below a value without a schema (metadata, preserved fields) nothing is removed.
  if (!s) return;
  if (isMap(x)) {
    for (const k of Object.keys(x)) {
      const sub = memberSchema(s, k) ?? undefined;
      if (x[k] === null && sub && sub.nullable !== true && sub.default === undefined) delete x[k];
      else pruneNonNullableNulls(x[k], sub);
    }
  } else if (Array.isArray(x)) {
    const items = asSchema(s.items);
    for (const v of x) pruneNonNullableNulls(v, items);
  }
}
