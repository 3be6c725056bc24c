// Deep copies of decoded API documents. Objects read from JSON are trees of plain objects,
// arrays and scalars; copying those by hand is several times cheaper than structuredClone,
// which every read and write of the registry and the informers pays for.

/** A deep copy of `value`; anything that is not a plain JSON tree is copied with structuredClone. */
export function deepCopy<T>(value: T): T {
  return copyValue(value) as T;
}

function copyValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyValue(value[i]);
    return out;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = copyValue((value as Record<string, unknown>)[key]);
    // `__proto__` is an ordinary key in API documents (see own.ts).
    if (key === '__proto__') Object.defineProperty(out, key, { value: v, writable: true, enumerable: true, configurable: true });
    else out[key] = v;
  }
  return out;
}
