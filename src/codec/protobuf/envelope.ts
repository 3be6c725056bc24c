// The binary envelope: the 4-byte prefix `6b 38 73 00`, then an `Unknown` message with
// typeMeta{apiVersion = 1, kind = 2} as field 1, the object's own message as `raw` (2),
// `contentEncoding` (3) and `contentType` (4). Writing it and reading its fields live here;
// decode.ts turns a read envelope into an object, since embedded objects nest envelopes.
import { ApiError } from '../../apimachinery/errors.js';
import { apiVersionOf, parseApiVersion, type GroupVersionKind, type KubeObject } from '../../apimachinery/types.js';
import { typeIdForKind } from '../../schema/index.js';
import { flavor } from '../../naming/index.js';
import { EncodeError, encodeMessage } from './encode.js';
import { messagePlan, type MessagePlan } from './plan.js';
import { Reader, Writer } from './wire.js';

export const PROTOBUF_PREFIX: readonly number[] = [0x6b, 0x38, 0x73, 0x00];

/** Whether bytes start with the binary envelope's prefix (stored values, request bodies). */
export function isProtobufPayload(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x6b && bytes[1] === 0x38 && bytes[2] === 0x73 && bytes[3] === 0x00;
}

// One writer serves every encode: encoding never yields, so calls cannot interleave.
let writer = new Writer();
const WRITER_KEEP_BYTES = 8 * 1024 * 1024;

function gvkOf(obj: KubeObject): GroupVersionKind {
  const gv = parseApiVersion(typeof obj.apiVersion === 'string' ? obj.apiVersion : '');
  return { ...gv, kind: typeof obj.kind === 'string' ? obj.kind : '' };
}

/** The 406 upstream answers for objects without a binary form (Table, custom resources). */
function notMarshalable(gvk: GroupVersionKind, known: boolean): ApiError {
  const type = known ? `*${gvk.version}.${gvk.kind}` : '*unstructured.Unstructured';
  return new ApiError(406, 'NotAcceptable', `object ${type} does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message`);
}

// Plans by served `apiVersion` and kind, for the flavor they were looked up in.
const planCache = new Map<string, MessagePlan | null>();
let planCacheFlavor = flavor();

function planForTypeMeta(apiVersion: string, kind: string): MessagePlan | undefined {
  if (planCacheFlavor !== flavor()) {
    planCache.clear();
    planCacheFlavor = flavor();
  }
  const key = `${apiVersion} ${kind}`;
  let plan = planCache.get(key);
  if (plan === undefined) {
    const gvk = { ...parseApiVersion(apiVersion), kind };
    const id = typeIdForKind(gvk);
    plan = (id === undefined ? undefined : messagePlan(id)) ?? null;
    planCache.set(key, plan);
  }
  return plan ?? undefined;
}

/** The message plan for a served group, version and kind, if it has one. */
export function planFor(gvk: GroupVersionKind): MessagePlan | undefined {
  return planForTypeMeta(apiVersionOf(gvk), gvk.kind);
}

/** Whether a kind has a binary form (every built-in kind but Table; no custom resource). */
export function canEncode(gvk: GroupVersionKind): boolean {
  return planFor(gvk)?.marshalable === true;
}

/**
 * Encodes an object in the binary envelope. `gvk` (served group names) defaults to the
 * object's own `apiVersion` and `kind`. Throws ApiError 406 for kinds without a binary form.
 */
export function encodeObject(obj: KubeObject, gvk?: GroupVersionKind): Uint8Array {
  const w = writer;
  w.reset();
  // Lists: reserve room for their items at once rather than doubling up to it.
  if (Array.isArray(obj.items)) w.ensure(obj.items.length * 2048);
  writeEnvelope(w, obj, gvk);
  const out = w.finish();
  if (w.buf.length > WRITER_KEEP_BYTES) writer = new Writer();
  return out;
}

/** Writes prefix and `Unknown` at the writer's position (watch frames embed it). */
export function writeEnvelope(w: Writer, obj: KubeObject, gvk?: GroupVersionKind): void {
  let plan: MessagePlan | undefined;
  let apiVersion: string;
  let kind: string;
  if (gvk === undefined) {
    // The object's own type: looked up by its type fields without building a GVK.
    apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
    kind = typeof obj.kind === 'string' ? obj.kind : '';
    plan = planForTypeMeta(apiVersion, kind);
    if (!plan?.marshalable) throw notMarshalable(gvkOf(obj), plan !== undefined);
  } else {
    apiVersion = apiVersionOf(gvk);
    kind = gvk.kind;
    plan = planFor(gvk);
    if (!plan?.marshalable) throw notMarshalable(gvk, plan !== undefined);
  }
  w.ensure(4);
  for (const b of PROTOBUF_PREFIX) w.byte(b);
  w.byte(0x0a);
  const typeMeta = w.beginLength();
  w.byte(0x0a);
  w.string(apiVersion);
  w.byte(0x12);
  w.string(kind);
  w.endLength(typeMeta);
  w.byte(0x12);
  const raw = w.beginLength();
  try {
    encodeMessage(w, plan, obj as Record<string, unknown>);
  } catch (e) {
    if (e instanceof EncodeError) {
      throw new ApiError(500, 'InternalError', `unable to encode ${kind} in the binary form: ${e.message}`);
    }
    throw e;
  }
  w.endLength(raw);
  // contentEncoding and contentType: always written, empty.
  w.byte(0x1a);
  w.byte(0);
  w.byte(0x22);
  w.byte(0);
}

export const PREFIX_TEXT = `[${PROTOBUF_PREFIX.join(' ')}]`;

/** The envelope's fields; `raw` as offsets into the bytes read. */
interface Unknown {
  apiVersion: string;
  kind: string;
  rawStart: number;
  rawEnd: number;
  contentEncoding: string;
  contentType: string;
}

/** Reads the `Unknown` after the prefix (the caller has checked the prefix). */
export function readUnknown(bytes: Uint8Array): Unknown {
  const r = new Reader(bytes, 4);
  const u: Unknown = { apiVersion: '', kind: '', rawStart: 0, rawEnd: 0, contentEncoding: '', contentType: '' };
  while (r.pos < r.end) {
    const tag = r.uvarint();
    switch (tag) {
      case 0x0a: {
        const end = r.lengthEnd();
        const outer = r.end;
        r.end = end;
        while (r.pos < end) {
          const t = r.uvarint();
          if (t === 0x0a) u.apiVersion = r.string();
          else if (t === 0x12) u.kind = r.string();
          else r.skip(t & 7);
        }
        r.end = outer;
        break;
      }
      case 0x12:
        u.rawEnd = r.lengthEnd();
        u.rawStart = r.pos;
        r.pos = u.rawEnd;
        break;
      case 0x1a:
        u.contentEncoding = r.string();
        break;
      case 0x22:
        u.contentType = r.string();
        break;
      default:
        r.skip(tag & 7);
    }
  }
  return u;
}
