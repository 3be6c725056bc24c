// Bytes of one object in one encoding, computed once per object instance. The watch cache
// hands every reader of one item revision the same answered object (see the registry's
// `ReadView.external`), so a thousand watchers, or a list and a watch, encode it once. The
// memo is keyed by the object itself: it goes away with the object, and an object that is
// mutated after encoding would answer stale bytes, so only read-only shared objects belong here.

const memo = new WeakMap<object, Map<string, Uint8Array>>();

/** `encode()` for `obj` under `key` (media type, version, representation), remembered for `obj`'s lifetime. */
export function encodedOnce(obj: object, key: string, encode: () => Uint8Array): Uint8Array {
  let entries = memo.get(obj);
  if (entries === undefined) {
    entries = new Map();
    memo.set(obj, entries);
  }
  let bytes = entries.get(key);
  if (bytes === undefined) {
    bytes = encode();
    entries.set(key, bytes);
  }
  return bytes;
}
