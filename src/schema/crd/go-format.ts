// How Go prints values in field errors, so messages read byte for byte as kube-apiserver's:
// `%q` for strings, `%v` for numbers (int64 for integral JSON numbers, float64 otherwise),
// `%#v` for maps and lists as they sit in an unstructured object.
import type { FieldError } from '../../apimachinery/errors.js';

// What Go's %q escapes (in UTF-16 code units: lone surrogates are invalid UTF-8 to Go).
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const NEEDS_ESCAPE = /["\\\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function escapeOne(ch: string): string {
  const c = ch.charCodeAt(0);
  switch (c) {
    case 0x22: return '\\"';
    case 0x5c: return '\\\\';
    case 7: return '\\a';
    case 8: return '\\b';
    case 12: return '\\f';
    case 10: return '\\n';
    case 13: return '\\r';
    case 9: return '\\t';
    case 11: return '\\v';
    default:
      if (c < 0x20 || c === 0x7f) return `\\x${c.toString(16).padStart(2, '0')}`;
      if (c >= 0xd800 && c < 0xe000) return '\\ufffd';
      return `\\u${c.toString(16).padStart(4, '0')}`;
  }
}

/** Go's strconv.Quote. */
export function goQuote(s: string): string {
  // One pass of a regular expression, not a string built per character: values of megabytes
  // are quoted into error messages.
  return `"${s.replace(NEEDS_ESCAPE, escapeOne)}"`;
}

/** A JSON number as an unstructured object holds it: integral values are int64. */
export function isGoInt(n: number): boolean {
  return Number.isInteger(n) && Math.abs(n) < 2 ** 63;
}

/** Go's `%v` of a float64: shortest digits, exponent form below 1e-4 and from 1e6 on (`1e+06`). */
export function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mant, expStr] = n.toExponential().split('e');
  const exp = Number(expStr);
  if (exp < -4 || exp >= 6) {
    const abs = Math.abs(exp);
    return `${mant}e${exp < 0 ? '-' : '+'}${abs < 10 ? `0${abs}` : abs}`;
  }
  return String(n);
}

/** Go's `%v` of a JSON number (int64 when integral). */
export function goNumber(n: number): string {
  return isGoInt(n) ? BigInt(n).toString() : goFloat(n);
}

/** Go's `%#v` of an unstructured value. */
export function goSharpV(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map((x) => goSharpV(x)).join(', ')}}`;
  if (typeof v === 'object') {
    const keys = Object.keys(v).sort();
    const rec = v as Record<string, unknown>;
    return `map[string]interface {}{${keys.map((k) => `${goQuote(k)}:${goSharpV(rec[k])}`).join(', ')}}`;
  }
  return String(v);
}

/** A bad value as field.Error prints it. */
export function goBadValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  return goSharpV(v);
}

/** Go's `%v` of a list of strings: `[a b]`. */
export function goStringList(list: readonly string[]): string {
  return `[${list.join(' ')}]`;
}

function withDetail(head: string, detail: string): string {
  return detail ? `${head}: ${detail}` : head;
}

export function fieldRequired(field: string, detail = ''): FieldError {
  return { type: 'FieldValueRequired', field, detail: withDetail('Required value', detail) };
}

export function fieldForbidden(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, detail: withDetail('Forbidden', detail) };
}

export function fieldInvalid(field: string, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, detail: withDetail(`Invalid value: ${goBadValue(value)}`, detail) };
}

/** A value given pre-rendered (Go printed it with a verb field.Error does not pick). */
export function fieldInvalidRendered(field: string, rendered: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, detail: withDetail(`Invalid value: ${rendered}`, detail) };
}

export function fieldTypeInvalid(field: string, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueTypeInvalid', field, detail: withDetail(`Invalid value: ${goBadValue(value)}`, detail) };
}

export function fieldNotSupported(field: string, value: unknown, valid: readonly string[]): FieldError {
  const list = valid.length > 0 ? `supported values: ${valid.map(goQuote).join(', ')}` : '';
  return { type: 'FieldValueNotSupported', field, detail: withDetail(`Unsupported value: ${goBadValue(value)}`, list) };
}

export function fieldDuplicate(field: string, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, detail: `Duplicate value: ${goBadValue(value)}` };
}

export function fieldTooLong(field: string, max: number): FieldError {
  return { type: 'FieldValueTooLong', field, detail: max >= 0 ? `Too long: may not be longer than ${max}` : 'Too long: value is too long' };
}

export function fieldTooMany(field: string, actual: number, max: number): FieldError {
  return { type: 'FieldValueTooMany', field, detail: `Too many: ${actual}: must have at most ${max} items` };
}

/** field.Path's Child: `a.b`, or `b` under the empty path. */
export function child(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

/** field.Path's Key: `a[b]`. */
export function key(path: string, k: string): string {
  return `${path}[${k}]`;
}

/** The text field.Error.Error() gives, which Kubernetes sorts some lists by. */
export function errorText(e: FieldError): string {
  return `${e.field}: ${e.detail}`;
}
