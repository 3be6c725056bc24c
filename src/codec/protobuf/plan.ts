// Message plans: the catalog's protobuf facts for one type, compiled once into the shape the
// encoder and decoder walk (fields by number, tags precomputed, value kinds resolved).
import { servedFieldName, lookupType } from '../../schema/index.js';
import type { FieldDef, ScalarType, TypeRef } from '../../schema/index.js';
import { flavor, type Flavor } from '../../naming/index.js';
import { WIRE_BYTES, WIRE_FIXED64, WIRE_VARINT, type Reader, type Writer } from './wire.js';

/** How one value is written on the wire. */
export const enum Kind {
  String,
  Bool,
  Int32,
  Int64,
  Double,
  /** []byte: base64 in JSON. */
  Bytes,
  /** A catalog struct. */
  Message,
  /** metav1.Time: Timestamp message, whole seconds in JSON. */
  Time,
  /** metav1.MicroTime: Timestamp message, microseconds in JSON. */
  MicroTime,
  /** resource.Quantity: message with its canonical string as field 1. */
  Quantity,
  /** intstr.IntOrString: message {type, intVal, strVal}. */
  IntOrString,
  /** metav1.Duration: message with nanoseconds as field 1. */
  Duration,
  /** runtime.RawExtension, metav1.FieldsV1, apiextensions JSON: message with raw bytes as field 1. */
  Raw,
  /** apiextensions JSONSchemaPropsOrBool: {allows = 1, schema = 2}. */
  SchemaOrBool,
  /** apiextensions JSONSchemaPropsOrArray: {schema = 1, jSONSchemas = 2}. */
  SchemaOrArray,
  /** apiextensions JSONSchemaPropsOrStringArray: {schema = 1, property = 2}. */
  SchemaOrStringArray,
}

export const enum Shape {
  Single,
  /** A repeated field: one occurrence per element. */
  List,
  /** A Go slice type with its own message (`Verbs`, `ExtraValue`): repeated items = 1. */
  WrappedList,
  /** A map: repeated entry messages {key = 1, value = 2}. */
  Map,
}

/** The JSON of a Go zero value of a non-message scalar kind (null where Go writes none). */
export function scalarZero(kind: Kind): unknown {
  switch (kind) {
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
    default:
      return null;
  }
}

export interface ValuePlan {
  kind: Kind;
  /** For `Message` and the schema wrappers: the struct's plan. */
  message?: MessagePlan;
  /** For map values that are wrapped lists. */
  wrappedList?: boolean;
}

export interface FieldPlan {
  /** JSON name as served (empty for an inline struct). */
  name: string;
  number: number;
  /** Position in declaration order (the compiled decoder's local for the field). */
  index: number;
  shape: Shape;
  value: ValuePlan;
  /** The tag of each occurrence (for packed fields: of the whole run). */
  tag: number;
  wireType: number;
  pointer: boolean;
  omitEmpty: boolean;
  inline: boolean;
  packed: boolean;
}

export interface MessagePlan {
  id: string;
  /** False for types without a protobuf message (Table): they cannot be encoded. */
  marshalable: boolean;
  /** By field number, ascending: the order upstream writes them. */
  fields: FieldPlan[];
  /** Declaration order: the order of keys in JSON. */
  declared: FieldPlan[];
  byNumber: (FieldPlan | undefined)[];
  /** The compiled encoder and decoder, made on first use (see encode.ts, decode.ts). */
  encoder?: (w: Writer, obj: Record<string, unknown>) => void;
  decoder?: (r: Reader, end: number, into?: Record<string, unknown>) => Record<string, unknown>;
}

const SCHEMA_PROPS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';

const plansByFlavor = new Map<Flavor, Map<string, MessagePlan>>();

/** The plan of a catalog type, compiled on first use (per flavor: field names can differ). */
export function messagePlan(id: string): MessagePlan | undefined {
  let plans = plansByFlavor.get(flavor());
  if (!plans) {
    plans = new Map();
    plansByFlavor.set(flavor(), plans);
  }
  const cached = plans.get(id);
  if (cached) return cached;
  const def = lookupType(id);
  if (!def) return undefined;
  const plan: MessagePlan = { id, marshalable: def.protobufMessage !== undefined, fields: [], declared: [], byNumber: [] };
  plans.set(id, plan);
  for (const f of def.fields) {
    if (!f.protobuf) continue;
    const fp = fieldPlan(f, plan.declared.length);
    plan.declared.push(fp);
    plan.byNumber[fp.number] = fp;
  }
  plan.fields = [...plan.declared].sort((a, b) => a.number - b.number);
  return plan;
}

function requirePlan(id: string): MessagePlan {
  const p = messagePlan(id);
  if (!p) throw new Error(`schema catalog has no type ${id}`);
  return p;
}

function scalarKind(scalar: ScalarType, protoType: string): Kind {
  switch (scalar) {
    case 'string':
      return Kind.String;
    case 'boolean':
      return Kind.Bool;
    case 'int32':
      return Kind.Int32;
    case 'int64':
      return Kind.Int64;
    case 'float64':
      return Kind.Double;
    case 'bytes':
      return Kind.Bytes;
    case 'int-or-string':
      return Kind.IntOrString;
    case 'quantity':
      return Kind.Quantity;
    case 'time':
      return Kind.Time;
    case 'micro-time':
      return Kind.MicroTime;
    case 'duration':
      return Kind.Duration;
    case 'raw-extension':
    case 'fields-v1':
      return Kind.Raw;
    case 'json':
      if (protoType.endsWith('.JSONSchemaPropsOrBool')) return Kind.SchemaOrBool;
      if (protoType.endsWith('.JSONSchemaPropsOrArray')) return Kind.SchemaOrArray;
      if (protoType.endsWith('.JSONSchemaPropsOrStringArray')) return Kind.SchemaOrStringArray;
      return Kind.Raw;
  }
}

function valuePlan(t: TypeRef, protoType: string): ValuePlan {
  if ('scalar' in t) {
    const kind = scalarKind(t.scalar, protoType);
    return kind >= Kind.SchemaOrBool ? { kind, message: requirePlan(SCHEMA_PROPS) } : { kind };
  }
  if ('ref' in t) {
    const def = lookupType(t.ref);
    if (def?.scalar) return valuePlan({ scalar: def.scalar }, protoType);
    return { kind: Kind.Message, message: requirePlan(t.ref) };
  }
  if ('list' in t) {
    // Only a map's value can be a list here (`map[string]ExtraValue`).
    return { ...valuePlan(t.list, 'string'), wrappedList: true };
  }
  throw new Error('nested maps have no protobuf form');
}

function wireTypeOf(kind: Kind): number {
  switch (kind) {
    case Kind.Bool:
    case Kind.Int32:
    case Kind.Int64:
      return WIRE_VARINT;
    case Kind.Double:
      return WIRE_FIXED64;
    default:
      return WIRE_BYTES;
  }
}

function fieldPlan(f: FieldDef, index: number): FieldPlan {
  const pb = f.protobuf!;
  let shape: Shape;
  let value: ValuePlan;
  if ('map' in f.type) {
    shape = Shape.Map;
    value = valuePlan(f.type.map, pb.mapEntry?.value ?? '');
  } else if ('list' in f.type) {
    shape = pb.label === 'repeated' ? Shape.List : Shape.WrappedList;
    value = valuePlan(f.type.list, pb.type);
  } else {
    shape = Shape.Single;
    value = valuePlan(f.type, pb.type);
  }
  const packed = pb.packed === true && shape === Shape.List && wireTypeOf(value.kind) !== WIRE_BYTES;
  const wireType = shape === Shape.Single || (shape === Shape.List && !packed) ? wireTypeOf(value.kind) : WIRE_BYTES;
  return {
    name: f.inline ? '' : servedFieldName(f.name),
    number: pb.number,
    index,
    shape,
    value,
    tag: (pb.number << 3) | wireType,
    wireType,
    pointer: f.pointer === true,
    omitEmpty: f.omitEmpty,
    inline: f.inline === true,
    packed,
  };
}
