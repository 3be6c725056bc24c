// Helpers over plain JSON values shared by the three patch formats, plus the renderings of
// values and types that Kubernetes' patch errors print (Go's `%v` and reflect type names),
// so that messages read the same as the ones clients know.

import { isPlainObject } from '../apimachinery/types.js';
import { deepCopy } from '../apimachinery/copy.js';

export type JsonObject = Record<string, unknown>;

export function clone<T>(value: T): T {
  return value === undefined ? value : deepCopy(value);
}

/** The JSON kind as Go's decoder names it in `cannot unmarshal <kind> into ...`. */
export function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'bigint') return 'number';
  return typeof value;
}

/**
 * The Go type a decoded JSON value has on the server (integers decode as int64, other
 * numbers as float64), as `reflect.TypeOf(v)` prints it.
 */
export function goTypeName(value: unknown): string {
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (Array.isArray(value)) return '[]interface {}';
  if (typeof value === 'object') return 'map[string]interface {}';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  // Integers beyond 2^53 are decoded as bigint; on the server they are int64 all the same.
  if (typeof value === 'bigint') return 'int64';
  if (typeof value === 'boolean') return 'bool';
  return 'string';
}

/** Same Go type (int64 and float64 are distinct, as on the server). */
export function sameGoType(a: unknown, b: unknown): boolean {
  return goTypeName(a) === goTypeName(b);
}

/** A value rendered as Go's `%v` renders the decoded form: `map[a:1 b:[x y]]`. */
export function goFormat(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goFormat).join(' ')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `map[${keys.map((k) => `${k}:${goFormat(value[k])}`).join(' ')}]`;
  }
  return String(value);
}

/** A value rendered by Go's `%s`: strings as they are, other scalars flagged as Go does. */
export function goFormatString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (typeof value === 'object') return goFormat(value);
  return `%!s(${goTypeName(value)}=${String(value)})`;
}
