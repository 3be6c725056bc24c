// Small readers over plain JSON objects. Kinds are untyped JSON at this layer, so every
// access narrows: a wrong type reads as absent rather than throwing.
import { isPlainObject, type KubeObject, type ObjectMeta } from '../apimachinery/types.js';
import { getOwn, setOwn } from '../apimachinery/own.js';
import { deepCopy } from '../apimachinery/copy.js';

export type JsonObject = Record<string, unknown>;

export function obj(value: unknown): JsonObject | undefined {
  return isPlainObject(value) ? value : undefined;
}

export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function objs(value: unknown): JsonObject[] {
  return arr(value).filter(isPlainObject);
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Reads a dotted path (`spec.template.spec`). */
export function at(root: unknown, path: string): unknown {
  let cur: unknown = root;
  for (const part of path.split('.')) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

/** The object at `key` of `parent`, created when absent or not an object. */
export function child(parent: JsonObject, key: string): JsonObject {
  const existing = getOwn(parent, key);
  if (isPlainObject(existing)) return existing;
  const created: JsonObject = {};
  setOwn(parent, key, created);
  return created;
}

/** Sets `key` when it is absent (undefined or null), as defaulting functions do. */
export function setDefault(target: JsonObject, key: string, value: unknown): void {
  if (getOwn(target, key) == null) setOwn(target, key, value);
}

export function meta(o: KubeObject): ObjectMeta {
  return isPlainObject(o.metadata) ? o.metadata : {};
}

export function clone<T>(value: T): T {
  return deepCopy(value);
}
