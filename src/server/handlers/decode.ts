// Request bodies of resource requests: an object of the resource's kind (type fields
// defaulted and checked, fields validated), or optional options such as DeleteOptions.
import { badRequest } from '../../apimachinery/errors.js';
import { apiVersionOf, isPlainObject, type KubeObject } from '../../apimachinery/types.js';
import { goJsonKind } from '../../codec/go-json.js';
import { negotiateInput } from '../../codec/negotiate.js';
import { decodeObjectBodyAsync } from '../../codec/object-body.js';
import { decodeBody, MalformedBodyError, type SerializerSet } from '../../codec/serializer.js';
import type { RESTStore, SubresourceStore } from '../../rest/index.js';
import { headerValue } from '../http.js';
import { readBody } from './body.js';
import { checkFields, customResourceOf } from './field-validation.js';
import { parseFieldValidation } from './options.js';
import type { ResourceRequest } from './request.js';
import { expectedKind } from './write.js';

/** Decodes a body into an object of the expected kind (defaulting apiVersion and kind). */
export async function decodeObject(r: ResourceRequest, serializers: SerializerSet, maxBodyBytes: number, store: RESTStore, optionsKind: string, subresource?: SubresourceStore): Promise<KubeObject> {
  const want = expectedKind(store, subresource);
  const serializer = negotiateInput(headerValue(r.req, 'content-type'), serializers, want);
  const body = await readBody(r.req, maxBodyBytes);
  const obj = await decodeObjectBodyAsync(serializer, body, want);
  const wantApiVersion = apiVersionOf(want);
  const gotKind = obj.kind || want.kind;
  const gotApiVersion = obj.apiVersion || wantApiVersion;
  if (gotApiVersion !== wantApiVersion && !alsoAccepted(store, subresource, gotApiVersion)) {
    throw badRequest(`the API version in the data (${gotApiVersion}) does not match the expected API version (${wantApiVersion})`);
  }
  if (gotKind !== want.kind) {
    throw badRequest(`${gotKind} in version "${want.version}" cannot be handled as a ${want.kind}: the kind in the data does not match the resource`);
  }
  obj.apiVersion = wantApiVersion;
  obj.kind = want.kind;
  const level = parseFieldValidation(r.query, optionsKind);
  const contentType = headerValue(r.req, 'content-type') ?? 'application/json';
  r.warnings.push(...checkFields(body, obj, want, level, contentType, false, customResourceOf(store.definition, want)));
  // Kinds outside the schema catalog still need object metadata, worded as Go's decoder.
  if (obj.metadata !== undefined && !isPlainObject(obj.metadata)) {
    throw badRequest(
      `${want.kind} in version "${want.version}" cannot be handled as a ${want.kind}: json: cannot unmarshal ${goJsonKind(obj.metadata)} into Go struct field ${want.kind}.metadata of type v1.ObjectMeta`,
    );
  }
  return obj;
}

/** Whether the subresource also takes objects of `apiVersion` (converted to its own version, same shape). */
function alsoAccepted(store: RESTStore, subresource: SubresourceStore | undefined, apiVersion: string): boolean {
  const sub = subresource?.definition;
  if (!sub?.acceptedVersions) return false;
  const group = sub.group ?? store.definition.group;
  return sub.acceptedVersions.some((v) => apiVersionOf({ group, version: v }) === apiVersion);
}

/** An optional JSON body (DeleteOptions): undefined when empty. */
export async function readOptionalJson(r: ResourceRequest, serializers: SerializerSet, maxBodyBytes: number): Promise<unknown> {
  const raw = await readBody(r.req, maxBodyBytes);
  if (raw.byteLength === 0) return undefined;
  const serializer = negotiateInput(headerValue(r.req, 'content-type'), serializers);
  try {
    return await decodeBody(serializer, raw);
  } catch (e) {
    // DeleteOptions are read as any object: the type fields first.
    throw e instanceof MalformedBodyError ? badRequest(e.objectMessage) : e;
  }
}

/** The body's namespace must be the request's; a missing one is set from the request. */
export function checkNamespace(obj: KubeObject, ns: string, store: RESTStore): void {
  if (!store.definition.namespaced) return;
  const meta = (obj.metadata ??= {});
  if (meta.namespace && meta.namespace !== ns) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  meta.namespace = ns;
}

/** The object must carry the URL's name, and no other namespace than the request's. */
export function checkName(obj: KubeObject, name: string, namespace: string): void {
  const objName = typeof obj.metadata?.name === 'string' ? obj.metadata.name : '';
  if (objName !== name) throw badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
  const objNamespace = obj.metadata?.namespace;
  if (namespace && typeof objNamespace === 'string' && objNamespace !== '' && objNamespace !== namespace) {
    throw badRequest(`the namespace of the object (${objNamespace}) does not match the namespace on the request (${namespace})`);
  }
}
