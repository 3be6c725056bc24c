// JSON form -> binary message, following what the upstream generated marshallers write:
// fields ascending by number; non-pointer scalars and structs always (zero values too);
// pointers, byte slices, lists and maps only when set; map entries sorted by key.
import { Kind, Shape, scalarZero, type FieldPlan, type MessagePlan, type ValuePlan } from './plan.js';
import { durationNanos, parseTime, quantityString, ZERO_TIME_SECONDS } from './values.js';
import type { Writer } from './wire.js';
import { stringifyJson } from '../json.js';

/** A value that does not fit its field; the caller reports it as a Status. */
export class EncodeError extends Error {}

type JsonObject = Record<string, unknown>;

const EMPTY: JsonObject = Object.freeze({}) as JsonObject;

export function encodeMessage(w: Writer, plan: MessagePlan, obj: JsonObject): void {
  (plan.encoder ??= compileEncoder(plan))(w, obj);
}

/** Writes a tag known when the encoder is compiled. */
function tagCode(tag: number): string {
  return tag < 0x80 ? `w.byte(${tag});` : `w.uvarint(${tag});`;
}

/**
 * Compiles a plan into straight-line code: one block per field in number order, property
 * names and tags as constants. Common shapes (strings, integers, booleans, structs, lists of
 * those) are written inline; the rest calls the general helpers below.
 */
function compileEncoder(plan: MessagePlan): (w: Writer, obj: JsonObject) => void {
  const lines: string[] = ['let v, s;'];
  plan.fields.forEach((f, i) => {
    const key = JSON.stringify(f.name);
    const F = `F[${i}]`;
    const T = tagCode(f.tag);
    // The sub-message's own compiled encoder, looked up on first use (types can recurse).
    const call = (arg: string): string => `(C${i} || (C${i} = H.compiled(P[${i}])))(w, ${arg});`;
    if (f.inline) {
      lines.push(`${T} s = w.beginLength(); ${call('o')} w.endLength(s);`);
      return;
    }
    lines.push(`v = o[${key}];`);
    const k = f.value.kind;
    if (f.shape === Shape.Single) {
      if (k === Kind.String || k === Kind.Bool || k === Kind.Int32 || k === Kind.Int64) {
        const test =
          k === Kind.String
            ? `typeof v === 'string'`
            : k === Kind.Bool
              ? `typeof v === 'boolean'`
              : k === Kind.Int64
                ? `(typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint'`
                : `typeof v === 'number' && Number.isInteger(v)`;
        const write = k === Kind.String ? `w.string(v);` : k === Kind.Bool ? `w.byte(v ? 1 : 0);` : `w.svarint(v);`;
        const expected = k === Kind.String ? 'string' : k === Kind.Bool ? 'boolean' : 'integer';
        const zero = f.pointer ? '' : `${T} w.byte(0);`;
        lines.push(`if (${test}) { ${T} ${write} } else if (v == null) { ${zero} } else H.fail(${F}, '${expected}', v);`);
      } else if (k === Kind.Message) {
        const zero = f.pointer ? '' : `${T} s = w.beginLength(); ${call('EMPTY')} w.endLength(s);`;
        lines.push(
          `if (v == null) { ${zero} } else { if (typeof v !== 'object' || Array.isArray(v)) H.fail(${F}, 'object', v); ${T} s = w.beginLength(); ${call('v')} w.endLength(s); }`,
        );
      } else {
        const zero = f.pointer ? '' : `H.writeZero(w, ${F});`;
        const writer =
          k === Kind.Time || k === Kind.MicroTime
            ? `H.writeTime(w, ${f.tag}, v, ${F})`
            : k === Kind.Quantity
              ? `H.writeQuantity(w, ${f.tag}, v, ${F})`
              : k === Kind.IntOrString
                ? `H.writeIntOrString(w, ${f.tag}, v, ${F})`
                : k === Kind.Raw
                  ? `H.writeRaw(w, ${f.tag}, v)`
                  : `H.writeValue(w, ${f.tag}, ${F}.value, v, ${F})`;
        lines.push(`if (v == null) { ${zero} } else ${writer};`);
      }
    } else if (f.shape === Shape.List && !f.packed && (k === Kind.Message || k === Kind.String)) {
      const item =
        k === Kind.Message
          ? `if (x !== null && (typeof x !== 'object' || Array.isArray(x))) H.fail(${F}, 'object', x); ${T} s = w.beginLength(); ${call('x ?? EMPTY')} w.endLength(s);`
          : `if (typeof x === 'string') { ${T} w.string(x); } else if (x === null) { ${T} w.byte(0); } else H.fail(${F}, 'string', x);`;
      lines.push(`if (v != null) { if (!Array.isArray(v)) H.fail(${F}, 'array', v); for (let j = 0; j < v.length; j++) { const x = v[j]; ${item} } }`);
    } else if (f.shape === Shape.List) {
      lines.push(`if (v != null) H.writeList(w, ${F}, v);`);
    } else if (f.shape === Shape.WrappedList) {
      lines.push(`if (v != null) { ${T} s = w.beginLength(); H.writeItems(w, v, ${F}); w.endLength(s); }`);
    } else {
      lines.push(`if (v != null) H.writeMap(w, ${F}, v);`);
    }
  });
  const subs = plan.fields.map((_, i) => `C${i}`).join(', ');
  const factory = new Function('F', 'P', 'H', 'EMPTY', `let ${subs || '_'};\nreturn function encode_${safeName(plan.id)}(w, o) {\n${lines.join('\n')}\n};`) as (
    ...args: unknown[]
  ) => (w: Writer, obj: JsonObject) => void;
  return factory(
    plan.fields,
    plan.fields.map((f) => f.value.message),
    { compiled: (p: MessagePlan) => (p.encoder ??= compileEncoder(p)), fail, writeZero, writeValue, writeList, writeItems, writeMap, writeTime, writeQuantity, writeIntOrString, writeRaw },
    EMPTY,
  );
}

function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9]/g, '_');
}

function fail(f: FieldPlan, expected: string, v: unknown): never {
  const got = Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v;
  throw new EncodeError(`field ${f.name || '(inline)'}: expected ${expected}, got ${got}`);
}

/** The Go zero value of a non-pointer field, as upstream writes it. */
function writeZero(w: Writer, f: FieldPlan): void {
  const vp = f.value;
  switch (vp.kind) {
    case Kind.String:
      w.uvarint(f.tag);
      w.byte(0);
      return;
    case Kind.Bool:
    case Kind.Int32:
    case Kind.Int64:
      w.uvarint(f.tag);
      w.byte(0);
      return;
    case Kind.Double:
      w.uvarint(f.tag);
      w.double(0);
      return;
    case Kind.Bytes:
      // A nil byte slice is not written.
      return;
    case Kind.Message: {
      w.uvarint(f.tag);
      const start = w.beginLength();
      encodeMessage(w, vp.message!, EMPTY);
      w.endLength(start);
      return;
    }
    case Kind.Quantity:
    case Kind.IntOrString:
    case Kind.Duration:
      writeValue(w, f.tag, vp, vp.kind === Kind.Quantity ? '0' : vp.kind === Kind.Duration ? '0s' : 0, f);
      return;
    default:
      // Times, raw extensions and the schema wrappers: an empty message.
      w.uvarint(f.tag);
      w.byte(0);
  }
}

function writeValue(w: Writer, tag: number, vp: ValuePlan, v: unknown, f: FieldPlan): void {
  switch (vp.kind) {
    case Kind.String:
      if (typeof v !== 'string') fail(f, 'string', v);
      w.uvarint(tag);
      w.string(v);
      return;
    case Kind.Bool:
      if (typeof v !== 'boolean') fail(f, 'boolean', v);
      w.uvarint(tag);
      w.byte(v ? 1 : 0);
      return;
    case Kind.Int32:
    case Kind.Int64:
      // Integers beyond 2^53 arrive as bigints (exact int64 values).
      if (!(typeof v === 'number' && Number.isInteger(v)) && !(vp.kind === Kind.Int64 && typeof v === 'bigint')) fail(f, 'integer', v);
      w.uvarint(tag);
      w.svarint(v);
      return;
    case Kind.Double:
      if (typeof v !== 'number') fail(f, 'number', v);
      w.uvarint(tag);
      w.double(v);
      return;
    case Kind.Bytes:
      if (typeof v !== 'string') fail(f, 'base64 string', v);
      w.uvarint(tag);
      w.bytes(Buffer.from(v, 'base64'));
      return;
    case Kind.Message: {
      if (typeof v !== 'object' || Array.isArray(v)) fail(f, 'object', v);
      w.uvarint(tag);
      const start = w.beginLength();
      encodeMessage(w, vp.message!, (v ?? EMPTY) as JsonObject);
      w.endLength(start);
      return;
    }
    case Kind.Time:
    case Kind.MicroTime:
      writeTime(w, tag, v, f);
      return;
    case Kind.Quantity:
      writeQuantity(w, tag, v, f);
      return;
    case Kind.IntOrString:
      writeIntOrString(w, tag, v, f);
      return;
    case Kind.Duration: {
      if (typeof v !== 'string') fail(f, 'duration string', v);
      let nanos;
      try {
        nanos = durationNanos(v);
      } catch (e) {
        throw new EncodeError(`field ${f.name}: ${(e as Error).message}`);
      }
      w.uvarint(tag);
      const start = w.beginLength();
      w.byte(0x08);
      w.svarint(nanos);
      w.endLength(start);
      return;
    }
    case Kind.Raw:
      writeRaw(w, tag, v);
      return;
    case Kind.SchemaOrBool: {
      w.uvarint(tag);
      const start = w.beginLength();
      if (typeof v === 'boolean') {
        w.byte(0x08);
        w.byte(v ? 1 : 0);
      } else if (typeof v === 'object' && !Array.isArray(v)) {
        w.byte(0x08);
        w.byte(1);
        writeValue(w, 0x12, { kind: Kind.Message, message: vp.message }, v, f);
      } else fail(f, 'boolean or JSON schema', v);
      w.endLength(start);
      return;
    }
    case Kind.SchemaOrArray:
    case Kind.SchemaOrStringArray: {
      w.uvarint(tag);
      const start = w.beginLength();
      const schema: ValuePlan = { kind: Kind.Message, message: vp.message };
      if (Array.isArray(v)) {
        const item: ValuePlan = vp.kind === Kind.SchemaOrArray ? schema : { kind: Kind.String };
        for (const x of v) writeValue(w, 0x12, item, x ?? (item.kind === Kind.String ? '' : EMPTY), f);
      } else if (typeof v === 'object') {
        writeValue(w, 0x0a, schema, v, f);
      } else fail(f, 'JSON schema or array', v);
      w.endLength(start);
      return;
    }
  }
}

function writeTime(w: Writer, tag: number, v: unknown, f: FieldPlan): void {
  if (typeof v !== 'string') fail(f, 'time string', v);
  let ts;
  try {
    ts = parseTime(v);
  } catch (e) {
    throw new EncodeError(`field ${f.name}: ${(e as Error).message}`);
  }
  w.uvarint(tag);
  if (ts.seconds === ZERO_TIME_SECONDS && ts.nanos === 0) {
    // Go's zero time is an empty message.
    w.byte(0);
    return;
  }
  const start = w.beginLength();
  w.byte(0x08);
  w.svarint(ts.seconds);
  w.byte(0x10);
  w.svarint(ts.nanos);
  w.endLength(start);
}

function writeQuantity(w: Writer, tag: number, v: unknown, f: FieldPlan): void {
  const text = typeof v === 'number' ? String(v) : v;
  if (typeof text !== 'string') fail(f, 'quantity', v);
  let q;
  try {
    q = quantityString(text);
  } catch (e) {
    throw new EncodeError(`field ${f.name}: ${(e as Error).message}`);
  }
  w.uvarint(tag);
  const start = w.beginLength();
  w.byte(0x0a);
  w.string(q);
  w.endLength(start);
}

function writeIntOrString(w: Writer, tag: number, v: unknown, f: FieldPlan): void {
  w.uvarint(tag);
  const start = w.beginLength();
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) fail(f, 'integer or string', v);
    w.byte(0x08);
    w.byte(0);
    w.byte(0x10);
    w.svarint(v);
    w.byte(0x1a);
    w.byte(0);
  } else if (typeof v === 'string') {
    w.byte(0x08);
    w.byte(1);
    w.byte(0x10);
    w.byte(0);
    w.byte(0x1a);
    w.string(v);
  } else fail(f, 'integer or string', v);
  w.endLength(start);
}

/** A raw extension's content: bytes as given, or the value's JSON text (same wire form as a string). */
function writeRaw(w: Writer, tag: number, v: unknown): void {
  w.uvarint(tag);
  const start = w.beginLength();
  if (v !== null && v !== undefined) {
    w.byte(0x0a);
    if (v instanceof Uint8Array) w.bytes(v);
    else w.string(stringifyJson(v));
  }
  w.endLength(start);
}

function zeroOf(vp: ValuePlan): unknown {
  return vp.kind === Kind.Message ? EMPTY : scalarZero(vp.kind);
}

function writeList(w: Writer, f: FieldPlan, v: unknown): void {
  if (!Array.isArray(v)) fail(f, 'array', v);
  const vp = f.value;
  if (f.packed) {
    if (v.length === 0) return;
    w.uvarint(f.tag);
    const start = w.beginLength();
    for (const x of v) {
      if (vp.kind === Kind.Double) w.double(typeof x === 'number' ? x : 0);
      else if (vp.kind === Kind.Bool) w.byte(x ? 1 : 0);
      else w.svarint(typeof x === 'number' || (typeof x === 'bigint' && vp.kind === Kind.Int64) ? x : 0);
    }
    w.endLength(start);
    return;
  }
  const tag = f.tag;
  if (vp.kind === Kind.Message) {
    const plan = vp.message!;
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (x !== null && (typeof x !== 'object' || Array.isArray(x))) fail(f, 'object', x);
      w.uvarint(tag);
      const start = w.beginLength();
      encodeMessage(w, plan, (x ?? EMPTY) as JsonObject);
      w.endLength(start);
    }
    return;
  }
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i];
    if (x === null || x === undefined) {
      if (vp.kind === Kind.Raw) {
        w.uvarint(tag);
        w.byte(0);
      } else writeValue(w, tag, vp, zeroOf(vp), f);
    } else writeValue(w, tag, vp, x, f);
  }
}

function writeItems(w: Writer, v: unknown, f: FieldPlan): void {
  if (!Array.isArray(v)) fail(f, 'array', v);
  for (const x of v) {
    if (x !== null && typeof x !== 'string') fail(f, 'string', x);
    w.byte(0x0a);
    w.string(x ?? '');
  }
}

/**
 * Map keys in byte order, as upstream sorts them. UTF-16 order agrees with it except where
 * two keys first differ in a surrogate against a character at or above U+E000.
 */
function sortedKeys(obj: JsonObject): string[] {
  const keys = Object.keys(obj);
  if (keys.length < 2) return keys;
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1] < keys[i];
  if (!sorted) keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const a = keys[i - 1];
    const b = keys[i];
    let j = 0;
    while (j < a.length && a.charCodeAt(j) === b.charCodeAt(j)) j++;
    if (j < a.length && a.charCodeAt(j) >= 0xd800 && b.charCodeAt(j) >= 0xd800) {
      return keys.sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    }
  }
  return keys;
}

function writeMap(w: Writer, f: FieldPlan, v: unknown): void {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(f, 'object', v);
  const obj = v as JsonObject;
  const vp = f.value;
  for (const key of sortedKeys(obj)) {
    // Read own values only: `obj['__proto__']` would be the prototype.
    const x = key === '__proto__' ? Object.getOwnPropertyDescriptor(obj, key)?.value : obj[key];
    w.uvarint(f.tag);
    const start = w.beginLength();
    w.byte(0x0a);
    w.string(key);
    if (vp.wrappedList) {
      w.byte(0x12);
      const inner = w.beginLength();
      if (x !== null && x !== undefined) writeItems(w, x, f);
      w.endLength(inner);
    } else if (x === null || x === undefined) {
      // A nil byte slice is left out; other Go values are written as their zero.
      if (vp.kind !== Kind.Bytes) {
        if (vp.kind === Kind.Raw || vp.kind === Kind.Time || vp.kind === Kind.MicroTime) {
          w.byte(0x12);
          w.byte(0);
        } else writeValue(w, 0x12, vp, zeroOf(vp), f);
      }
    } else writeValue(w, 0x12, vp, x, f);
    w.endLength(start);
  }
}
