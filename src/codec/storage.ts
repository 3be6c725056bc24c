// How objects are written to storage. JSON by default; the binary envelope codec plugs in
// here later. The stored bytes never carry `metadata.resourceVersion`: it is the item's
// modRevision, set on every read.
import type { KubeObject } from '../apimachinery/types.js';
import { isPlainObject } from '../apimachinery/types.js';
import { parseJsonText, stringifyJson } from './json.js';

export interface ObjectCodec {
  encode(obj: KubeObject): Uint8Array;
  decode(bytes: Uint8Array): KubeObject;
  /**
   * A number of bytes `encode(obj)` never exceeds, found without encoding (cheaper than
   * an encode), or Infinity when the codec cannot tell. Lets a size check skip the encode.
   */
  sizeBound?(obj: KubeObject, limit: number): number;
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
  sizeBound(obj: KubeObject, limit: number): number {
    return jsonSizeBound(obj, limit);
  },
};

/** The longest JSON text of a number: `-2.2250738585072014e-308`. */
const MAX_NUMBER_TEXT = 24;
/** UTF-8 bytes one UTF-16 unit of a string can take in JSON text: a `\uXXXX` escape. */
const MAX_BYTES_PER_UNIT = 6;
/** Deeper than any document the server accepts; beyond it the walk gives up rather than recurse. */
const MAX_WALK_DEPTH = 256;

/**
 * An upper bound of the UTF-8 length of `value` as JSON text: every string character
 * counted as an escape, every number at its longest. The walk stops once past `limit`
 * (the answer is then only known to be over it), and answers Infinity for anything but a
 * tree of plain objects, arrays and scalars.
 */
export function jsonSizeBound(value: unknown, limit: number): number {
  let total = 0;
  const walk = (v: unknown, depth: number): void => {
    if (total > limit) return;
    switch (typeof v) {
      case 'string':
        total += v.length * MAX_BYTES_PER_UNIT + 2;
        return;
      case 'number':
        total += MAX_NUMBER_TEXT;
        return;
      case 'bigint':
        total += v.toString().length;
        return;
      case 'boolean':
        total += 5;
        return;
      case 'undefined':
        total += 4;
        return;
      case 'object':
        break;
      default:
        total = Infinity;
        return;
    }
    if (v === null) {
      total += 4;
      return;
    }
    if (depth > MAX_WALK_DEPTH) {
      total = Infinity;
      return;
    }
    if (Array.isArray(v)) {
      total += 2;
      for (let i = 0; i < v.length && total <= limit; i++) {
        total += 1;
        walk(v[i], depth + 1);
      }
      return;
    }
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      // A toJSON (Date) or class instance: only the encoder knows.
      total = Infinity;
      return;
    }
    total += 2;
    for (const key of Object.keys(v)) {
      if (total > limit) return;
      total += key.length * MAX_BYTES_PER_UNIT + 4;
      walk((v as Record<string, unknown>)[key], depth + 1);
    }
  };
  walk(value, 0);
  return total;
}

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
