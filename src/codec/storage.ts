// How objects are written to storage. JSON by default; the binary envelope codec plugs in
// here later. The stored bytes never carry `metadata.resourceVersion`: it is the item's
// modRevision, set on every read.
import type { KubeObject } from '../apimachinery/types.js';
import { isPlainObject } from '../apimachinery/types.js';
import { parseJsonText, stringifyJson } from './json.js';

export interface ObjectCodec {
  encode(obj: KubeObject): Uint8Array;
  decode(bytes: Uint8Array): KubeObject;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const jsonCodec: ObjectCodec = {
  encode(obj: KubeObject): Uint8Array {
    // int64 values beyond 2^53 are bigints, kept exact.
    return encoder.encode(stringifyJson(obj));
  },
  decode(bytes: Uint8Array): KubeObject {
    // Stored objects were checked (depth, well-formed strings) when they were written.
    const value: unknown = parseJsonText(decoder.decode(bytes), { checkDepth: false, trusted: true });
    if (!isPlainObject(value)) throw new Error('stored value is not an object');
    return value as KubeObject;
  },
};

/**
 * Encodes `obj` for storage: without `metadata.resourceVersion`, and with the type fields
 * and metadata first, as Go writes a typed object, so that an object read back and written
 * again unchanged encodes to the same bytes (an unchanged update then writes nothing).
 */
export function encodeForStorage(codec: ObjectCodec, obj: KubeObject): Uint8Array {
  const { kind, apiVersion, metadata, ...rest } = obj;
  let meta = metadata;
  if (meta?.resourceVersion !== undefined) {
    meta = { ...meta };
    delete meta.resourceVersion;
  }
  return codec.encode({
    ...(kind !== undefined ? { kind } : {}),
    ...(apiVersion !== undefined ? { apiVersion } : {}),
    ...(meta !== undefined ? { metadata: meta } : {}),
    ...rest,
  });
}
