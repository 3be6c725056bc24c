// Equality of API values as they serialize: what a client would see as the same document.
import { isPlainObject } from './types.js';

/**
 * Deep equality over JSON values (objects decoded from requests or storage, and values
 * built from them). Key order does not matter; a member whose value is `undefined` counts
 * as absent, since it is not written; only own members are read, so keys such as
 * `constructor` compare as data; int64 values beyond 2^53 (bigint) compare by value.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    let kb = 0;
    for (const k of Object.keys(b)) if (b[k] !== undefined) kb++;
    if (ka.length !== kb) return false;
    return ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}
