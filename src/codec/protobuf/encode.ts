// JSON form -> binary message, following what the upstream generated marshallers write:
// fields ascending by number; non-pointer scalars and structs always (zero values too);
// pointers, byte slices, lists and maps only when set; map entries sorted by key.
import { Kind, Shape, type FieldPlan, type MessagePlan, type ValuePlan } from './plan.js';
import { durationNanos, parseTime, quantityString, ZERO_TIME_SECONDS } from './values.js';
import type { Writer } from './wire.js';

/** A value that does not fit its field; the caller reports it as a Status. */
export class EncodeError extends Error {}

type JsonObject = Record<string, unknown>;

const EMPTY: JsonObject = Object.freeze({}) as JsonObject;
const textEncoder = new TextEncoder();

export function encodeMessage(w: Writer, plan: MessagePlan, obj: JsonObject): void {
  const fields = plan.fields;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    if (f.inline) {
      // An embedded struct: its fields sit beside the parent's in JSON.
      w.uvarint(f.tag);
      const start = w.beginLength();
      encodeMessage(w, f.value.message!, obj);
      w.endLength(start);
      continue;
    }
    const v = obj[f.name];
    switch (f.shape) {
      case Shape.Single:
        if (v === undefined || v === null) {
          if (!f.pointer) writeZero(w, f);
        } else writeValue(w, f.tag, f.value, v, f);
        break;
      case Shape.List:
        if (v !== undefined && v !== null) writeList(w, f, v);
        break;
      case Shape.WrappedList:
        if (v !== undefined && v !== null) {
          w.uvarint(f.tag);
          const start = w.beginLength();
          writeItems(w, v, f);
          w.endLength(start);
        }
        break;
      case Shape.Map:
        if (v !== undefined && v !== null) writeMap(w, f, v);
        break;
    }
  }
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
      if (typeof v !== 'number' || !Number.isInteger(v)) fail(f, 'integer', v);
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
    case Kind.MicroTime: {
      if (typeof v !== 'string') fail(f, 'time string', v);
      let ts;
      try {
        ts = parseTime(v);
      } catch (e) {
        throw new EncodeError(`field ${f.name}: ${(e as Error).message}`);
      }
      w.uvarint(tag);
      if (ts.seconds === ZERO_TIME_SECONDS && ts.nanos === 0) {
        w.byte(0);
        return;
      }
      const start = w.beginLength();
      w.byte(0x08);
      w.svarint(ts.seconds);
      w.byte(0x10);
      w.svarint(ts.nanos);
      w.endLength(start);
      return;
    }
    case Kind.Quantity: {
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
      return;
    }
    case Kind.IntOrString: {
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
      return;
    }
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
    case Kind.Raw: {
      w.uvarint(tag);
      const start = w.beginLength();
      if (v !== null && v !== undefined) {
        w.byte(0x0a);
        w.bytes(v instanceof Uint8Array ? v : textEncoder.encode(JSON.stringify(v)));
      }
      w.endLength(start);
      return;
    }
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

function zeroOf(vp: ValuePlan): unknown {
  switch (vp.kind) {
    case Kind.String:
      return '';
    case Kind.Bool:
      return false;
    case Kind.Int32:
    case Kind.Int64:
    case Kind.Double:
    case Kind.IntOrString:
      return 0;
    case Kind.Quantity:
      return '0';
    case Kind.Duration:
      return '0s';
    case Kind.Message:
      return EMPTY;
    default:
      return null;
  }
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
      else w.svarint(typeof x === 'number' ? x : 0);
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

/** Map keys in byte order, as upstream sorts them (UTF-16 order differs only past U+D7FF). */
function sortedKeys(obj: JsonObject): string[] {
  const keys = Object.keys(obj);
  if (keys.length < 2) return keys;
  keys.sort();
  if (keys.some((k) => /[\ud800-\uffff]/.test(k))) keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return keys;
}

function writeMap(w: Writer, f: FieldPlan, v: unknown): void {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(f, 'object', v);
  const obj = v as JsonObject;
  const vp = f.value;
  for (const key of sortedKeys(obj)) {
    const x = obj[key];
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
