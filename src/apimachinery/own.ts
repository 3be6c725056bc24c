// Member access for objects whose keys come from clients. `__proto__`, `constructor` and
// `prototype` are ordinary keys in API documents, but a plain `obj[key]` read walks the
// prototype chain (so an absent `constructor` reads as a function) and `obj[key] = v` with
// `__proto__` swaps the object's prototype instead of adding a member. These touch own
// properties only.

/** The object's own member `key`, or undefined. */
export function getOwn<T>(obj: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** Sets own member `key`, whatever its name. */
export function setOwn<O extends Record<string, unknown>>(obj: O, key: string, value: O[string]): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    (obj as Record<string, unknown>)[key] = value;
  }
}
