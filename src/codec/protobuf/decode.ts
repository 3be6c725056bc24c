// Binary envelope and message -> JSON form, as the upstream types would print after reading
// it: keys in declaration order, zero values for absent non-pointer fields (`""`, `0`, `{}`,
// `null` for times and nil slices unless `omitempty`), pointers and slices only when present.
import { Kind, Shape, scalarZero, type FieldPlan, type MessagePlan, type ValuePlan } from './plan.js';
import { formatDuration, formatMicroTime, formatTime, quantityString, ZERO_TIME_SECONDS } from './values.js';
import { Reader, WIRE_BYTES, WIRE_FIXED64, WIRE_VARINT, WireError, utf8 } from './wire.js';
import { PREFIX_TEXT, isProtobufPayload, planFor, readUnknown } from './envelope.js';
import { parseJsonText } from '../json.js';
import { ApiError, badRequest } from '../../apimachinery/errors.js';
import { apiVersionOf, parseApiVersion, type GroupVersionKind, type KubeObject } from '../../apimachinery/types.js';
import { protobufMediaTypes } from '../../naming/index.js';

type JsonObject = Record<string, unknown>;

/** Nesting bound for messages (recursive schemas, envelopes inside raw fields). */
const MAX_DEPTH = 100;
const depth = { n: 0 };

/** Called before each top-level decode; a decode that threw may have left the count high. */
function resetDepth(): void {
  depth.n = 0;
}

/** Decodes a message; its fields are added to `into` when given (the envelope's type fields go first). */
function decodeMessage(r: Reader, end: number, plan: MessagePlan, into?: JsonObject): JsonObject {
  return (plan.decoder ??= compileDecoder(plan))(r, end, into);
}

/** The wire type a field's occurrences use when not packed. */
function elementWireType(kind: Kind): number {
  return kind === Kind.Double ? WIRE_FIXED64 : isVarint(kind) ? WIRE_VARINT : WIRE_BYTES;
}

/** The read expression of one value of a field, in generated code. */
function readCode(f: FieldPlan, i: number): string {
  switch (f.value.kind) {
    case Kind.String:
      return 'r.string()';
    case Kind.Bool:
      return 'r.bool()';
    case Kind.Int32:
      return 'r.int32()';
    case Kind.Int64:
      return 'r.int64Exact()';
    case Kind.Double:
      return 'r.double()';
    case Kind.Message:
      // The sub-message's own compiled decoder, looked up on first use (types can recurse).
      return `(C${i} || (C${i} = H.compiled(P[${i}])))(r, r.lengthEnd())`;
    case Kind.Time:
      return 'H.readTimestamp(r, false)';
    case Kind.MicroTime:
      return 'H.readTimestamp(r, true)';
    case Kind.Bytes:
      return `H.readValue(r, F[${i}].value)`;
    default:
      return `H.readWrapper(r, F[${i}].value)`;
  }
}

/** The JSON of an absent non-pointer field, in generated code. */
function zeroCode(f: FieldPlan, i: number): string {
  switch (f.value.kind) {
    case Kind.String:
      return "''";
    case Kind.Bool:
      return 'false';
    case Kind.Int32:
    case Kind.Int64:
    case Kind.Double:
    case Kind.IntOrString:
      return '0';
    case Kind.Quantity:
      return "'0'";
    case Kind.Duration:
      return "'0s'";
    case Kind.Message:
      return `H.empty(P[${i}])`;
    default:
      return 'null';
  }
}

/**
 * Compiles a plan into a decoder: a switch over the tags it knows, one local per field,
 * then the object built in declaration order with upstream's rules for absent and zero
 * values written out per field.
 */
function compileDecoder(plan: MessagePlan): (r: Reader, end: number, into?: JsonObject) => JsonObject {
  const cases: string[] = [];
  for (const f of plan.fields) {
    const i = f.index;
    const local = `f${i}`;
    const read = readCode(f, i);
    switch (f.shape) {
      case Shape.Single:
        cases.push(`case ${f.tag}: ${local} = ${read}; break;`);
        break;
      case Shape.List: {
        const wt = elementWireType(f.value.kind);
        cases.push(`case ${(f.number << 3) | wt}: (${local} ??= []).push(${read}); break;`);
        if (wt !== WIRE_BYTES) {
          cases.push(`case ${(f.number << 3) | WIRE_BYTES}: { const e = r.lengthEnd(); const l = (${local} ??= []); while (r.pos < e) l.push(${read}); break; }`);
        }
        break;
      }
      case Shape.WrappedList:
        cases.push(`case ${f.tag}: H.readItems(r, ${local} ??= []); break;`);
        break;
      case Shape.Map:
        cases.push(
          f.value.kind === Kind.String && !f.value.wrappedList
            ? `case ${f.tag}: H.readStringEntry(r, ${local} ??= {}); break;`
            : `case ${f.tag}: H.readEntry(r, F[${i}].value, ${local} ??= {}); break;`,
        );
        break;
    }
  }
  const build: string[] = [];
  plan.declared.forEach((f, i) => {
    const local = `f${i}`;
    const key = JSON.stringify(f.name);
    if (f.inline) {
      build.push(`{ const sub = ${local} ?? H.empty(P[${i}]); for (const k in sub) o[k] = sub[k]; }`);
      return;
    }
    const absent = f.omitEmpty ? '' : `o[${key}] = null;`;
    if (f.shape !== Shape.Single) {
      const present = f.omitEmpty ? `if (!H.isEmpty(${local})) o[${key}] = ${local};` : `o[${key}] = ${local};`;
      build.push(`if (${local} === undefined) { ${absent} } else { ${present} }`);
      return;
    }
    const k = f.value.kind;
    if (f.pointer || k === Kind.Bytes) {
      const present = f.omitEmpty && !f.pointer ? `if (${local} !== '') o[${key}] = ${local};` : `o[${key}] = ${local};`;
      build.push(`if (${local} === undefined) { ${absent} } else { ${present} }`);
      return;
    }
    const zero = k === Kind.String ? "''" : k === Kind.Bool ? 'false' : k === Kind.Int32 || k === Kind.Int64 || k === Kind.Double ? '0' : undefined;
    if (zero !== undefined && f.omitEmpty) build.push(`if (${local} !== undefined && ${local} !== ${zero}) o[${key}] = ${local};`);
    else build.push(`o[${key}] = ${local} !== undefined ? ${local} : ${zeroCode(f, i)};`);
  });
  const locals = plan.declared.map((_, i) => `f${i}`).join(', ');
  const body = [
    'if (++DEPTH.n > MAX_DEPTH) H.tooDeep();',
    locals ? `let ${locals};` : '',
    'const outer = r.end;',
    'r.end = end;',
    'const buf = r.buf;',
    'while (r.pos < end) {',
    // One-byte tags (field numbers below 16) are read in place.
    '  let tag = buf[r.pos];',
    '  if (tag < 0x80) r.pos++;',
    '  else tag = r.uvarint();',
    '  switch (tag) {',
    ...cases.map((c) => `    ${c}`),
    '    default: H.other(r, tag, PLAN);',
    '  }',
    '}',
    'r.end = outer;',
    'DEPTH.n--;',
    'const o = into === undefined ? new Out() : into;',
    ...build,
    'return o;',
  ].join('\n');
  const subs = plan.declared.map((_, i) => `C${i}`).join(', ');
  const factory = new Function(
    'F',
    'P',
    'H',
    'PLAN',
    'DEPTH',
    'MAX_DEPTH',
    // Objects made by a constructor get room for all their properties in place (V8 sizes
    // them from the first few made); with Object.prototype they are plain objects.
    `let ${subs || '_'};\nfunction Out() {}\nOut.prototype = Object.prototype;\nreturn function decode_${plan.id.replace(/[^A-Za-z0-9]/g, '_')}(r, end, into) {\n${body}\n};`,
  ) as (
    ...args: unknown[]
  ) => (r: Reader, end: number, into?: JsonObject) => JsonObject;
  return factory(
    plan.declared,
    plan.declared.map((f) => f.value.message),
    { compiled: (p: MessagePlan) => (p.decoder ??= compileDecoder(p)), tooDeep, readValue, readTimestamp, readWrapper, readStringEntry, readItems, readEntry, empty: emptyMessage, isEmpty: isEmptyCollection, other: otherField },
    plan,
    depth,
    MAX_DEPTH,
  );
}

function tooDeep(): never {
  throw new WireError(`the object nesting depth exceeds the limit of ${MAX_DEPTH}`);
}

/** A tag the compiled switch does not list: an unknown field (skipped) or a known one sent with the wrong wire type. */
function otherField(r: Reader, tag: number, plan: MessagePlan): void {
  const f = plan.byNumber[tag >>> 3];
  if (f !== undefined) throw wrongWireType(tag & 7, f);
  r.skip(tag & 7);
}

function isVarint(kind: Kind): boolean {
  return kind === Kind.Bool || kind === Kind.Int32 || kind === Kind.Int64;
}

function wrongWireType(wt: number, f: FieldPlan): WireError {
  return new WireError(`proto: wrong wireType = ${wt} for field ${f.name || f.value.message?.id || f.number}`);
}

/** An empty message read as the struct it stands for (all fields at their zero). */
function emptyMessage(plan: MessagePlan): JsonObject {
  return (plan.decoder ??= compileDecoder(plan))(EMPTY_READER, 0);
}

const EMPTY_READER = new Reader(new Uint8Array(0));

function isEmptyCollection(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 0;
  for (const _ in v as JsonObject) return false;
  return true;
}

/** The JSON of a Go zero value of a non-pointer field. */
function zeroJson(vp: ValuePlan): unknown {
  return vp.kind === Kind.Message ? emptyMessage(vp.message!) : scalarZero(vp.kind);
}

function readValue(r: Reader, vp: ValuePlan): unknown {
  switch (vp.kind) {
    case Kind.String:
      return r.string();
    case Kind.Bool:
      return r.bool();
    case Kind.Int32:
      return r.int32();
    case Kind.Int64:
      return r.int64Exact();
    case Kind.Double:
      return r.double();
    case Kind.Bytes: {
      const end = r.lengthEnd();
      const b = r.buf;
      const s = Buffer.from(b.buffer, b.byteOffset + r.pos, end - r.pos).toString('base64');
      r.pos = end;
      return s;
    }
    case Kind.Message: {
      const end = r.lengthEnd();
      return decodeMessage(r, end, vp.message!);
    }
    case Kind.Time:
    case Kind.MicroTime:
      return readTimestamp(r, vp.kind === Kind.MicroTime);
    default:
      return readWrapper(r, vp);
  }
}

function readTimestamp(r: Reader, micro: boolean): string | null {
  const end = r.lengthEnd();
  // An empty message is Go's zero time, which prints as null.
  if (end === r.pos) return null;
  const outerEnd = r.end;
  r.end = end;
  let seconds = 0;
  let nanos = 0;
  while (r.pos < end) {
    const tag = r.uvarint();
    if (tag === 0x08) seconds = r.int64();
    else if (tag === 0x10) nanos = r.int32();
    else r.skip(tag & 7);
  }
  r.end = outerEnd;
  // Time keeps whole seconds only; MicroTime keeps the fraction.
  if (seconds === ZERO_TIME_SECONDS && (nanos === 0 || !micro)) return null;
  return micro ? formatMicroTime(seconds, nanos) : formatTime(seconds);
}

function readItems(r: Reader, into: unknown[]): void {
  const end = r.lengthEnd();
  const outerEnd = r.end;
  r.end = end;
  while (r.pos < end) {
    const tag = r.uvarint();
    if (tag === 0x0a) into.push(r.string());
    else r.skip(tag & 7);
  }
  r.end = outerEnd;
}

/** An entry of a `map<string, string>` (labels, annotations, data): the common case. */
function readStringEntry(r: Reader, into: JsonObject): void {
  const end = r.lengthEnd();
  const outerEnd = r.end;
  r.end = end;
  let key = '';
  let value = '';
  while (r.pos < end) {
    const tag = r.uvarint();
    if (tag === 0x0a) key = r.string();
    else if (tag === 0x12) value = r.string();
    else if (tag >>> 3 === 2) throw new WireError(`proto: wrong wireType = ${tag & 7} for field value`);
    else r.skip(tag & 7);
  }
  r.end = outerEnd;
  if (key === '__proto__') Object.defineProperty(into, key, { value, enumerable: true, writable: true, configurable: true });
  else into[key] = value;
}

function readEntry(r: Reader, vp: ValuePlan, into: JsonObject): void {
  const end = r.lengthEnd();
  const outerEnd = r.end;
  r.end = end;
  let key = '';
  let value: unknown;
  while (r.pos < end) {
    const tag = r.uvarint();
    if (tag === 0x0a) key = r.string();
    else if (tag >>> 3 === 2) {
      if (vp.wrappedList) {
        const list: unknown[] = [];
        readItems(r, list);
        value = list;
      } else {
        const expected = vp.kind === Kind.Double ? WIRE_FIXED64 : isVarint(vp.kind) ? WIRE_VARINT : WIRE_BYTES;
        if ((tag & 7) !== expected) throw new WireError(`proto: wrong wireType = ${tag & 7} for field value`);
        value = readValue(r, vp);
      }
    } else r.skip(tag & 7);
  }
  r.end = outerEnd;
  if (value === undefined) value = vp.wrappedList || vp.kind === Kind.Bytes ? null : zeroJson(vp);
  // A plain assignment of `__proto__` would set the prototype, not a key (a valid ConfigMap key).
  if (key === '__proto__') Object.defineProperty(into, key, { value, enumerable: true, writable: true, configurable: true });
  else into[key] = value;
}

/** The messages with special JSON forms, each read from its own small message. */
function readWrapper(r: Reader, vp: ValuePlan): unknown {
  const end = r.lengthEnd();
  const outerEnd = r.end;
  r.end = end;
  let f1: unknown;
  let f2: unknown;
  let f3: unknown;
  let list: unknown[] | undefined;
  const schema: ValuePlan | undefined = vp.message ? { kind: Kind.Message, message: vp.message } : undefined;
  while (r.pos < end) {
    const tag = r.uvarint();
    const num = tag >>> 3;
    const wt = tag & 7;
    switch (vp.kind) {
      case Kind.Quantity:
        if (tag === 0x0a) f1 = r.string();
        else r.skip(wt);
        break;
      case Kind.IntOrString:
        if (tag === 0x08) f1 = r.int64();
        else if (tag === 0x10) f2 = r.int32();
        else if (tag === 0x1a) f3 = r.string();
        else r.skip(wt);
        break;
      case Kind.Duration:
        if (tag === 0x08) f1 = r.int64();
        else r.skip(wt);
        break;
      case Kind.Raw:
        if (tag === 0x0a) f1 = readRaw(r);
        else r.skip(wt);
        break;
      case Kind.SchemaOrBool:
        if (tag === 0x08) f1 = r.bool();
        else if (tag === 0x12) f2 = readValue(r, schema!);
        else r.skip(wt);
        break;
      case Kind.SchemaOrArray:
      case Kind.SchemaOrStringArray:
        if (tag === 0x0a) f1 = readValue(r, schema!);
        else if (num === 2 && wt === WIRE_BYTES) (list ??= []).push(vp.kind === Kind.SchemaOrArray ? readValue(r, schema!) : r.string());
        else r.skip(wt);
        break;
      default:
        r.skip(wt);
    }
  }
  r.end = outerEnd;
  switch (vp.kind) {
    case Kind.Quantity:
      if (f1 === undefined) return '0';
      try {
        return quantityString(f1 as string);
      } catch (e) {
        throw new WireError((e as Error).message);
      }
    case Kind.IntOrString:
      return f1 === 1 ? (f3 ?? '') : (f2 ?? 0);
    case Kind.Duration:
      return formatDuration((f1 as number | undefined) ?? 0);
    case Kind.Raw:
      return f1 ?? null;
    case Kind.SchemaOrBool:
      return f2 ?? f1 ?? false;
    default:
      return list && list.length > 0 ? list : (f1 ?? null);
  }
}

/** Raw bytes holding an embedded object: JSON, or another binary envelope. */
function readRaw(r: Reader): unknown {
  const end = r.lengthEnd();
  const start = r.pos;
  r.pos = end;
  if (end === start) return null;
  const bytes = r.buf.subarray(start, end);
  if (isProtobufPayload(bytes)) return decodeEmbedded(bytes);
  try {
    return parseJsonText(utf8(r.buf, start, end));
  } catch {
    throw new WireError('raw extension does not hold valid JSON');
  }
}

/**
 * Decodes a binary envelope into the object's JSON form, `apiVersion` and `kind` taken from
 * the envelope (or from `defaults` where the envelope leaves them empty, as a request
 * body may). Throws ApiError 400 for anything that is not a well-formed envelope of a
 * built-in kind.
 */
export function decodeObject(bytes: Uint8Array, defaults?: GroupVersionKind): KubeObject {
  resetDepth();
  try {
    return decodeEnvelope(bytes, defaults);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    if (e instanceof WireError || e instanceof RangeError || e instanceof SyntaxError) throw badRequest(e.message);
    throw e;
  }
}

/** An envelope inside a raw field (watch events, List items). */
function decodeEmbedded(bytes: Uint8Array): KubeObject {
  return decodeEnvelope(bytes, undefined);
}

function decodeEnvelope(bytes: Uint8Array, defaults: GroupVersionKind | undefined): KubeObject {
  if (bytes.length === 0) throw badRequest('empty data');
  if (!isProtobufPayload(bytes)) {
    throw badRequest(`provided data does not appear to be a protobuf message, expected prefix ${PREFIX_TEXT}`);
  }
  if (bytes.length === 4) throw badRequest('empty body');
  const u = readUnknown(bytes);
  if (u.contentEncoding !== '') throw badRequest(`unsupported content encoding ${JSON.stringify(u.contentEncoding)} in the binary envelope`);
  let { group, version } = parseApiVersion(u.apiVersion);
  let kind = u.kind;
  if (defaults) {
    if (kind === '') kind = defaults.kind;
    if (version === '') ({ group, version } = defaults);
  }
  const typeMeta = `runtime.TypeMeta{APIVersion:${JSON.stringify(u.apiVersion)}, Kind:${JSON.stringify(u.kind)}}`;
  if (kind === '') throw badRequest(`Object 'Kind' is missing in '${typeMeta}'`);
  if (version === '') throw badRequest(`Object 'apiVersion' is missing in '${typeMeta}'`);
  const gvk = { group, version, kind };
  const apiVersion = apiVersionOf(gvk);
  if (u.contentType !== '' && !protobufMediaTypes().includes(u.contentType)) {
    if (u.contentType !== 'application/json') throw badRequest(`unsupported content type ${JSON.stringify(u.contentType)} in the binary envelope`);
    // JSON carried in the envelope: the object as written.
    let value: KubeObject;
    try {
      value = parseJsonText(utf8(bytes, u.rawStart, u.rawEnd)) as KubeObject;
    } catch (e) {
      if (e instanceof SyntaxError) throw badRequest(`the JSON in the binary envelope is malformed: ${e.message}`);
      throw e;
    }
    return { ...value, kind, apiVersion };
  }
  const plan = planFor(gvk);
  if (!plan?.marshalable) throw badRequest(`no kind "${kind}" is registered for version "${apiVersion}"`);
  const r = new Reader(bytes, u.rawStart, u.rawEnd);
  return decodeMessage(r, u.rawEnd, plan, { kind, apiVersion }) as KubeObject;
}
