// RFC 7386 JSON merge patch as kube-apiserver applies it: objects merge, null deletes,
// anything else replaces. Values that land in the document have their null object members
// removed (null elements of arrays stay). A patch that is neither an object nor an array
// is a 400 `Invalid JSON Patch`; an array patch replaces the whole document.

import { badRequest } from './errors.js';
import { clone, type JsonObject } from './json-value.js';
import { getOwn, setOwn } from '../apimachinery/own.js';
import { isPlainObject } from '../apimachinery/types.js';

export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  if (Array.isArray(patch)) return pruneNulls(clone(patch));
  if (!isPlainObject(patch)) throw badRequest('Invalid JSON Patch');
  if (!isPlainObject(doc)) return pruneNulls(clone(patch));
  return mergeInto(clone(doc), patch);
}

function mergeInto(target: JsonObject, patch: JsonObject): JsonObject {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete target[key];
      continue;
    }
    // Members are read and written as own properties: `__proto__` and friends are data.
    const current = getOwn(target, key);
    if (current === undefined || current === null) setOwn(target, key, pruneNulls(clone(value)));
    else setOwn(target, key, mergeValue(current, value));
  }
  return target;
}

function mergeValue(current: unknown, patch: unknown): unknown {
  if (!isPlainObject(current)) return pruneNulls(clone(patch));
  // An object replaced by a non-object takes the patch value as sent.
  if (!isPlainObject(patch)) return clone(patch);
  return mergeInto(current, patch);
}

/** Drops null members of objects at any depth (null array elements are kept). */
function pruneNulls(value: unknown): unknown {
  if (Array.isArray(value)) {
    for (const v of value) pruneNulls(v);
  } else if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (v === null) delete value[k];
      else pruneNulls(v);
    }
  }
  return value;
}
