// Deep freezing of decoded API documents, for caches whose objects are shared by every
// reader (informers): frozen once when stored, so that a reader that forgets to copy before
// changing one fails at once (ESM code is strict: writing a frozen object throws) instead of
// corrupting what every other reader sees.

/** A value that must not be changed, at any depth. */
export type DeepReadonly<T> = T extends (infer E)[]
  ? readonly DeepReadonly<E>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** Freezes `value` and everything it holds; returns it. Frozen parts are not walked again. */
export function deepFreeze<T>(value: T): T {
  freezeValue(value);
  return value;
}

function freezeValue(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  // Typed arrays with elements cannot be frozen; decoded JSON holds none, other callers' bytes stay as they are.
  if (ArrayBuffer.isView(value)) return;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) freezeValue(value[i]);
    return;
  }
  for (const key of Object.keys(value)) freezeValue((value as Record<string, unknown>)[key]);
}
