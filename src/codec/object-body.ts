// A request body that must be one object (create, update): decoded by the negotiated
// serializer, its failures worded as Kubernetes' create and update handlers word them.
import { badRequest } from '../apimachinery/errors.js';
import type { GroupVersionKind, KubeObject } from '../apimachinery/types.js';
import { typeMetaError } from './go-json.js';
import { decodeBody, MalformedBodyError, type Serializer } from './serializer.js';

/** The start of a body as Kubernetes quotes it in errors: JSON objects as text, anything else in hex. */
function summarizeBody(body: Uint8Array, maxLength = 30): string {
  if (body.byteLength === 0) return '<empty>';
  const head = body.subarray(0, maxLength);
  const more = body.byteLength > maxLength ? ' ...' : '';
  if (body[0] === 0x7b) return Buffer.from(head).toString('utf8') + more;
  return Buffer.from(head).toString('hex') + more;
}

/** 400 for a body whose kind could not even be read. */
function unrecognized(want: GroupVersionKind, detail: string, body: Uint8Array): Error {
  return badRequest(`the object provided is unrecognized (must be of type ${want.kind}): ${detail} (${summarizeBody(body)})`);
}

/** The same, large YAML bodies read off the event loop. */
export async function decodeObjectBodyAsync(serializer: Serializer, body: Uint8Array, want: GroupVersionKind): Promise<KubeObject> {
  let value: unknown;
  try {
    value = await decodeBody(serializer, body, want);
  } catch (e) {
    throw malformed(e, want, body);
  }
  return asObject(value, want, body);
}

function malformed(e: unknown, want: GroupVersionKind, body: Uint8Array): unknown {
  return e instanceof MalformedBodyError ? unrecognized(want, e.objectMessage, body) : e;
}

function asObject(value: unknown, want: GroupVersionKind, body: Uint8Array): KubeObject {
  const typeError = typeMetaError(value);
  if (typeError) throw unrecognized(want, typeError, body);
  const obj = (value ?? {}) as KubeObject;
  // Null type fields and metadata read as absent, as in Go.
  if (obj.apiVersion === null) delete obj.apiVersion;
  if (obj.kind === null) delete obj.kind;
  if (obj.metadata === null) delete obj.metadata;
  return obj;
}
