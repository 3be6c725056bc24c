// CEL types of schema nodes, as the type checker, the cost estimate and the evaluator see
// them, and the conversion of JSON values to the evaluator's values.
import type { CelInput } from '@bufbuild/cel';
import { tick } from './meter.js';
import { celLib } from './runtime.js';
import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import { getOwn } from '../../apimachinery/own.js';

/** Kubernetes bounds unbounded collections and strings by the largest request body (3 MiB). */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

export type ScalarKind = 'bool' | 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'null' | 'dyn' | 'type' | 'timestamp' | 'duration' | 'url';

/**
 * A CEL type. `max` is the largest size a value can have (characters of a string, elements
 * of a list or map); `min` the smallest, when known (a literal's).
 */
export type CelT =
  | { kind: ScalarKind; max?: number; min?: number }
  | { kind: 'list'; elem: CelT; max: number }
  | { kind: 'map'; key: CelT; value: CelT; max: number }
  | { kind: 'object'; fields: Map<string, CelT>; max?: number };

export const DYN: CelT = { kind: 'dyn' };
export const BOOL: CelT = { kind: 'bool' };
export const INT: CelT = { kind: 'int' };
export const UINT: CelT = { kind: 'uint' };
export const DOUBLE: CelT = { kind: 'double' };
export const STRING: CelT = { kind: 'string', max: MAX_REQUEST_SIZE_BYTES };
export const BYTES: CelT = { kind: 'bytes', max: MAX_REQUEST_SIZE_BYTES };
export const NULL: CelT = { kind: 'null' };
export const TYPE: CelT = { kind: 'type' };

export function listOf(elem: CelT, max = MAX_REQUEST_SIZE_BYTES): CelT {
  return { kind: 'list', elem, max };
}
export function mapOf(key: CelT, value: CelT, max = MAX_REQUEST_SIZE_BYTES): CelT {
  return { kind: 'map', key, value, max };
}

/** The type's name as cel-go prints it in overload errors. */
export function typeName(t: CelT): string {
  switch (t.kind) {
    case 'list':
      return `list(${typeName(t.elem)})`;
    case 'map':
      return `map(${typeName(t.key)}, ${typeName(t.value)})`;
    case 'object':
      return 'object';
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    case 'duration':
      return 'google.protobuf.Duration';
    case 'url':
      return 'kubernetes.URL';
    case 'null':
      return 'null_type';
    default:
      return t.kind;
  }
}

/** The size a value of the type has at most (strings, bytes, lists, maps), else 1. */
export function maxSize(t: CelT): number {
  if (t.max !== undefined) return t.max;
  return t.kind === 'dyn' || t.kind === 'string' || t.kind === 'bytes' ? MAX_REQUEST_SIZE_BYTES : 1;
}

const RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);
const IDENT = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * A property name as CEL rules spell it (Kubernetes' escaping: reserved words become
 * `__word__`, `__`, `.`, `-`, `/` become `__underscores__`, `__dot__`, `__dash__`, `__slash__`);
 * undefined when the name cannot be written, so the property is not visible to rules.
 */
export function escapeName(name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`;
  let out = '';
  for (let i = 0; i < name.length; i++) {
    const c = name[i];
    if (c === '_' && name[i + 1] === '_') {
      out += '__underscores__';
      i++;
    } else if (c === '.') out += '__dot__';
    else if (c === '-') out += '__dash__';
    else if (c === '/') out += '__slash__';
    else out += c;
  }
  return IDENT.test(out) ? out : undefined;
}

/** The smallest JSON text of a value of the schema (what bounds how many fit in a request). */
function minSerializedSize(schema: JSONSchemaProps): number {
  if (schema['x-kubernetes-int-or-string'] || schema['x-kubernetes-preserve-unknown-fields']) return 1;
  switch (schema.type) {
    case 'string':
      return 2;
    case 'boolean':
      return 4;
    case 'integer':
    case 'number':
      return 1;
    case 'array':
    case 'object':
      return 2;
    default:
      return 1;
  }
}

/** The most elements of a collection whose elements take at least `elemMin` bytes each. */
function boundFromRequest(elemMin: number): number {
  return Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elemMin + 1));
}

/**
 * The CEL type of a schema node. `root` adds apiVersion, kind and metadata.name /
 * metadata.generateName, as Kubernetes does for the resource root and embedded resources.
 */
export function schemaType(schema: JSONSchemaProps, root: boolean): CelT {
  if (schema['x-kubernetes-int-or-string']) return DYN;
  switch (schema.type) {
    case 'boolean':
      return BOOL;
    case 'integer':
      return INT;
    case 'number':
      return DOUBLE;
    case 'string':
      if (schema.format === 'byte') return { kind: 'bytes', max: schema.maxLength ?? MAX_REQUEST_SIZE_BYTES - 2 };
      return { kind: 'string', max: schema.maxLength ?? MAX_REQUEST_SIZE_BYTES - 2 };
    case 'array': {
      const items = schema.items !== undefined && !Array.isArray(schema.items) ? schema.items : undefined;
      const elem = items ? schemaType(items, !!items['x-kubernetes-embedded-resource']) : DYN;
      return listOf(elem, schema.maxItems ?? boundFromRequest(items ? minSerializedSize(items) : 1));
    }
    case 'object': {
      const extra = schema.additionalProperties;
      if (typeof extra === 'object' && extra !== null) {
        const value = schemaType(extra, !!extra['x-kubernetes-embedded-resource']);
        return mapOf({ kind: 'string', max: MAX_REQUEST_SIZE_BYTES }, value, schema.maxProperties ?? boundFromRequest(minSerializedSize(extra) + 4));
      }
      const props = schema.properties ?? {};
      const fields = new Map<string, CelT>();
      for (const [name, prop] of Object.entries(props)) {
        const escaped = escapeName(name);
        if (escaped !== undefined) fields.set(escaped, schemaType(prop, !!prop['x-kubernetes-embedded-resource']));
      }
      if (root || schema['x-kubernetes-embedded-resource']) {
        if (!fields.has('apiVersion')) fields.set('apiVersion', STRING);
        if (!fields.has('kind')) fields.set('kind', STRING);
        const meta = new Map<string, CelT>([['name', STRING], ['generateName', STRING]]);
        fields.set('metadata', { kind: 'object', fields: meta });
      }
      if (fields.size === 0 && schema['x-kubernetes-preserve-unknown-fields']) return DYN;
      return { kind: 'object', fields };
    }
    default:
      return DYN;
  }
}

/** A JSON number as CEL sees it in an untyped (dyn) position. */
function dynNumber(n: number): CelInput {
  return Number.isInteger(n) && Number.isSafeInteger(n) ? BigInt(n) : n;
}

/**
 * A JSON object as the evaluator's map, its values converted when first read: a rule reads a
 * few fields of an object that may hold a hundred thousand (Kubernetes' adaptors are lazy
 * too), and converting everything up front would cost more than the rule.
 */
class LazyObject implements ReadonlyMap<string, CelInput> {
  private readonly converted = new Map<string, CelInput>();
  /** CEL key to JSON key, for the keys a rule can see; built on first need. */
  private visible?: Map<string, string>;

  constructor(
    private readonly obj: Record<string, unknown>,
    private readonly t: CelT,
  ) {}

  private typeOf(key: string): CelT | undefined {
    if (this.t.kind === 'object') return this.t.fields.get(key);
    return this.t.kind === 'map' ? this.t.value : DYN;
  }

  /** The JSON key a CEL key reads, if the rule can see it. */
  private source(key: string): string | undefined {
    if (this.t.kind !== 'object') return Object.hasOwn(this.obj, key) ? key : undefined;
    return this.keyMap().get(key);
  }

  private keyMap(): Map<string, string> {
    if (!this.visible) {
      this.visible = new Map();
      for (const k of Object.keys(this.obj)) {
        const escaped = this.t.kind === 'object' ? escapeName(k) : k;
        if (escaped !== undefined && this.typeOf(escaped) && this.obj[k] !== undefined) this.visible.set(escaped, k);
      }
    }
    return this.visible;
  }

  get size(): number {
    return this.keyMap().size;
  }

  get(key: string): CelInput | undefined {
    if (typeof key !== 'string') return undefined;
    tick();
    const hit = this.converted.get(key);
    if (hit !== undefined) return hit;
    const from = this.source(key);
    const t = this.typeOf(key);
    if (from === undefined || !t) return undefined;
    const raw = this.obj[from];
    if (raw === undefined) return undefined;
    const v = toCel(raw, t);
    this.converted.set(key, v);
    return v;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  *keys(): MapIterator<string> {
    for (const k of this.keyMap().keys()) {
      tick();
      yield k;
    }
  }

  *values(): MapIterator<CelInput> {
    for (const k of this.keyMap().keys()) yield this.get(k) as CelInput;
  }

  *entries(): MapIterator<[string, CelInput]> {
    for (const k of this.keyMap().keys()) yield [k, this.get(k) as CelInput];
  }

  [Symbol.iterator](): MapIterator<[string, CelInput]> {
    return this.entries();
  }

  forEach(fn: (value: CelInput, key: string, map: ReadonlyMap<string, CelInput>) => void): void {
    for (const [k, v] of this.entries()) fn(v, k, this);
  }
}

/** A JSON array as the evaluator's list, its elements converted when first read. */
function lazyList(arr: unknown[], elem: CelT): CelInput[] {
  const converted: (CelInput | undefined)[] = [];
  const at = (i: number): CelInput => {
    tick();
    return (converted[i] ??= toCel(arr[i], elem));
  };
  return new Proxy(arr as CelInput[], {
    get(target, prop, receiver) {
      if (typeof prop === 'string') {
        const c = prop.charCodeAt(0);
        if (c >= 48 && c <= 57) {
          const i = Number(prop);
          if (Number.isInteger(i) && i < target.length) return at(i);
        }
        if (prop === 'values' || prop === 'entries') {
          // The evaluator iterates with values(); entries for completeness.
          return prop === 'values'
            ? function* () {
                for (let i = 0; i < target.length; i++) yield at(i);
              }
            : function* () {
                for (let i = 0; i < target.length; i++) yield [i, at(i)];
              };
        }
      }
      if (prop === Symbol.iterator) {
        return function* () {
          for (let i = 0; i < target.length; i++) yield at(i);
        };
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}

/** A JSON value as the evaluator's value, typed by `t` (property names escaped for objects). */
export function toCel(value: unknown, t: CelT): CelInput {
  if (value === null || value === undefined) return null;
  const { celList, celMap, celUint } = celLib();
  switch (t.kind) {
    case 'int':
      return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : toCel(value, DYN);
    case 'uint':
      return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? celUint(BigInt(value)) : toCel(value, DYN);
    case 'double':
      return typeof value === 'number' ? value : toCel(value, DYN);
    case 'bytes':
      return typeof value === 'string' ? new Uint8Array(Buffer.from(value, 'base64')) : toCel(value, DYN);
    case 'list':
      return Array.isArray(value) ? celList(lazyList(value, t.elem)) : toCel(value, DYN);
    case 'map':
    case 'object':
      if (typeof value !== 'object' || Array.isArray(value)) return toCel(value, DYN);
      return celMap(new LazyObject(value as Record<string, unknown>, t));
    default:
      break;
  }
  if (typeof value === 'number') return dynNumber(value);
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return celList(lazyList(value, DYN));
  if (typeof value === 'object') return celMap(new LazyObject(value as Record<string, unknown>, DYN));
  return null;
}

/**
 * The type `t` with sizes measured on `value` instead of declared: the bound the runtime
 * cost check uses (an actual value is never larger than what it measures).
 */
export function measuredType(t: CelT, value: unknown): CelT {
  // A null where anything may stand measures as null, not as the largest value a request holds.
  if (value === null || value === undefined) return t.kind === 'dyn' ? NULL : t;
  if (typeof value === 'string') return { kind: t.kind === 'bytes' ? 'bytes' : 'string', max: value.length };
  if (Array.isArray(value)) {
    const elemDecl = t.kind === 'list' ? t.elem : DYN;
    const fast = measuredScalars(elemDecl, value);
    if (fast) return listOf(fast, value.length);
    let elem: CelT | undefined;
    for (const v of value) elem = widen(elem, measuredType(elemDecl, v));
    return listOf(elem ?? (elemDecl.kind === 'dyn' ? NULL : elemDecl), value.length);
  }
  if (typeof value === 'object') {
    if (t.kind === 'map') {
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj);
      const fast = measuredScalars(t.value, keys.map((k) => obj[k]));
      if (fast) return mapOf({ kind: 'string', max: keys.reduce((m, k) => Math.max(m, k.length), 0) }, fast, keys.length);
    }
    const entries = Object.entries(value as Record<string, unknown>);
    if (t.kind === 'object') {
      const fields = new Map<string, CelT>();
      for (const [name, ft] of t.fields) fields.set(name, ft);
      for (const [k, v] of entries) {
        const escaped = escapeName(k);
        const ft = escaped === undefined ? undefined : t.fields.get(escaped);
        if (escaped !== undefined && ft) fields.set(escaped, measuredType(ft, v));
      }
      return { kind: 'object', fields };
    }
    const valueDecl = t.kind === 'map' ? t.value : DYN;
    let v: CelT | undefined;
    let keyMax = 0;
    for (const [k, x] of entries) {
      v = widen(v, measuredType(valueDecl, x));
      keyMax = Math.max(keyMax, k.length);
    }
    // An empty untyped collection holds nothing: measuring its elements as unbounded would inflate every bound above it.
    return mapOf({ kind: 'string', max: keyMax }, v ?? (valueDecl.kind === 'dyn' ? NULL : valueDecl), entries.length);
  }
  return t.kind === 'dyn' ? (typeof value === 'number' ? DOUBLE : typeof value === 'boolean' ? BOOL : DYN) : t;
}

/**
 * The measured type of many values declared as one scalar type, without a type per value
 * (lists and maps of a hundred thousand strings are measured on every write); undefined
 * when the declared type is not a scalar or a value is not of it.
 */
function measuredScalars(decl: CelT, values: unknown[]): CelT | undefined {
  if (decl.kind === 'string' || decl.kind === 'bytes') {
    let max = 0;
    let any = false;
    for (const v of values) {
      if (typeof v === 'string') {
        any = true;
        if (v.length > max) max = v.length;
      } else if (v !== null && v !== undefined) return undefined;
    }
    return any ? { kind: decl.kind, max } : decl;
  }
  if (decl.kind === 'int' || decl.kind === 'uint' || decl.kind === 'double' || decl.kind === 'bool') {
    for (const v of values) if (v !== null && v !== undefined && typeof v !== 'number' && typeof v !== 'boolean') return undefined;
    return decl;
  }
  return undefined;
}

/** The smallest type covering both (sizes maximised; different shapes give dyn). */
function widen(a: CelT | undefined, b: CelT): CelT {
  if (!a) return b;
  if (a.kind === 'list' && b.kind === 'list') return listOf(widen(a.elem, b.elem), Math.max(a.max, b.max));
  if (a.kind === 'map' && b.kind === 'map') return mapOf(widen(a.key, b.key), widen(a.value, b.value), Math.max(a.max, b.max));
  if (a.kind === 'object' && b.kind === 'object') {
    const fields = new Map(a.fields);
    for (const [k, t] of b.fields) fields.set(k, widen(fields.get(k), t));
    return { kind: 'object', fields };
  }
  if (a.kind === b.kind) return a.max === undefined && b.max === undefined ? a : { kind: a.kind, max: Math.max(maxSize(a), maxSize(b)) } as CelT;
  // Unrelated shapes: the largest size either has still bounds the loops over it.
  return { kind: 'dyn', max: Math.max(maxSize(a), maxSize(b)) };
}

/** Own-key read of a JSON object member (client keys are ordinary keys). */
export function member(obj: unknown, key: string): unknown {
  return obj !== null && typeof obj === 'object' && !Array.isArray(obj) ? getOwn(obj as Record<string, unknown>, key) : undefined;
}

