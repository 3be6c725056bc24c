// The Swagger 2.0 document (`/openapi/v2`), as JSON and as the gnostic
// `openapi.v2.Document` protobuf message that kubectl asks for.

import { createHash } from 'node:crypto';
import { productName } from '../../naming/index.js';
import { definitionsFor, reachableIds, refTo, type JsonSchema } from './definitions.js';
import { buildPaths, operationExtensions, type OpenApiResource, type Operation, type Parameter } from './paths.js';
import { ProtoWriter } from './protobuf-writer.js';
import { metaRoots, rootsOf } from './roots.js';
import { withCustomDefinitions } from './custom.js';
import { isPlainObject } from '../../apimachinery/types.js';

export interface OpenApiV2 {
  json: Buffer;
  protobuf: Buffer;
  /** Quoted strong ETag over the JSON bytes. */
  etag: string;
}

function parameterV2(p: Parameter): JsonSchema {
  const out: JsonSchema = { uniqueItems: true, type: p.type, description: p.description, name: p.name, in: p.in };
  if (p.required) out.required = true;
  return out;
}

function operationV2(op: Operation): JsonSchema {
  const parameters: JsonSchema[] = op.parameters.map(parameterV2);
  if (op.body) parameters.unshift({ name: 'body', in: 'body', required: op.method !== 'delete', schema: refTo(op.body, 2) });
  const responses: Record<string, JsonSchema> = {};
  for (const [code, id] of Object.entries(op.responses)) {
    if (id === undefined) continue;
    responses[code] = { description: code === '201' ? 'Created' : code === '202' ? 'Accepted' : 'OK', schema: id === 'string' ? { type: 'string' } : refTo(id, 2) };
  }
  responses['401'] = { description: 'Unauthorized' };
  return {
    description: op.description ?? op.operationId,
    consumes: op.consumes,
    produces: op.produces,
    schemes: ['https'],
    tags: [op.tag],
    operationId: op.operationId,
    parameters,
    responses,
    ...operationExtensions(op),
  };
}

/** The Swagger 2.0 document as a plain object. */
function buildV2Document(resources: readonly OpenApiResource[], version: string): JsonSchema {
  const paths: Record<string, JsonSchema> = {};
  for (const entry of buildPaths(resources)) {
    const item: JsonSchema = {};
    for (const op of entry.operations) item[op.method] = operationV2(op);
    paths[entry.path] = item;
  }
  const ids = reachableIds([...rootsOf(resources), ...metaRoots()]);
  return {
    swagger: '2.0',
    info: { title: productName() === 'kubernetes' ? 'Kubernetes' : 'Orch', version },
    paths,
    definitions: withCustomDefinitions(definitionsFor(ids, 2), resources, 2),
    securityDefinitions: { BearerToken: { description: 'Bearer Token authentication', type: 'apiKey', name: 'authorization', in: 'header' } },
    security: [{ BearerToken: [] }],
  };
}

export function buildV2(resources: readonly OpenApiResource[], version: string): OpenApiV2 {
  const doc = buildV2Document(resources, version);
  const json = Buffer.from(JSON.stringify(doc));
  const protobuf = Buffer.from(encodeDocument(doc));
  const etag = `"${createHash('sha512').update(json).digest('hex').toUpperCase()}"`;
  return { json, protobuf, etag };
}

// ---- gnostic openapi.v2 message encoding (field numbers of OpenAPIv2.proto) ----

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function int(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined;
}

/** `Any`: gnostic carries non-schema values as YAML text; JSON is valid YAML. */
function encodeAny(value: unknown): Uint8Array {
  return new ProtoWriter().string(2, JSON.stringify(value)).finish();
}

function encodeNamedAny(name: string, value: unknown): Uint8Array {
  return new ProtoWriter().string(1, name).message(2, encodeAny(value)).finish();
}

function vendorExtensions(w: ProtoWriter, field: number, obj: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(obj)) if (k.startsWith('x-')) w.message(field, encodeNamedAny(k, v));
}

function encodeSchema(s: Record<string, unknown>): Uint8Array {
  const w = new ProtoWriter();
  w.string(1, str(s.$ref));
  w.string(2, str(s.format));
  w.string(3, str(s.title));
  w.string(4, str(s.description));
  if (s.default !== undefined) w.message(5, encodeAny(s.default));
  // Value validations (custom resource schemas carry them).
  w.double(6, num(s.multipleOf));
  w.double(7, num(s.maximum));
  w.bool(8, s.exclusiveMaximum === true);
  w.double(9, num(s.minimum));
  w.bool(10, s.exclusiveMinimum === true);
  w.int64(11, int(s.maxLength));
  w.int64(12, int(s.minLength));
  w.string(13, str(s.pattern));
  w.int64(14, int(s.maxItems));
  w.int64(15, int(s.minItems));
  w.bool(16, s.uniqueItems === true);
  w.int64(17, int(s.maxProperties));
  w.int64(18, int(s.minProperties));
  if (Array.isArray(s.required)) w.strings(19, s.required as string[]);
  if (Array.isArray(s.enum)) for (const e of s.enum) w.message(20, encodeAny(e));
  if (isPlainObject(s.additionalProperties)) w.message(21, new ProtoWriter().message(1, encodeSchema(s.additionalProperties)).finish());
  else if (typeof s.additionalProperties === 'boolean') w.message(21, new ProtoWriter().bool(2, s.additionalProperties).finish());
  if (typeof s.type === 'string') w.message(22, new ProtoWriter().string(1, s.type).finish());
  if (isPlainObject(s.items)) w.message(23, new ProtoWriter().message(1, encodeSchema(s.items)).finish());
  if (Array.isArray(s.allOf)) for (const a of s.allOf) if (isPlainObject(a)) w.message(24, encodeSchema(a));
  if (isPlainObject(s.properties)) {
    const props = new ProtoWriter();
    for (const [name, sub] of Object.entries(s.properties)) {
      if (isPlainObject(sub)) props.message(1, new ProtoWriter().string(1, name).message(2, encodeSchema(sub)).finish());
    }
    w.message(25, props.finish());
  }
  if (s.example !== undefined) w.message(30, encodeAny(s.example));
  vendorExtensions(w, 31, s);
  return w.finish();
}

function encodeParameter(p: Record<string, unknown>): Uint8Array {
  let parameter: Uint8Array;
  if (p.in === 'body') {
    const body = new ProtoWriter()
      .string(1, str(p.description))
      .string(2, str(p.name))
      .string(3, 'body')
      .bool(4, p.required === true)
      .message(5, isPlainObject(p.schema) ? encodeSchema(p.schema) : undefined)
      .finish();
    parameter = new ProtoWriter().message(1, body).finish();
  } else {
    // Query and path sub-schemas differ in field numbers after `name`.
    const query = p.in === 'query';
    const sub = new ProtoWriter()
      .bool(1, p.required === true)
      .string(2, str(p.in))
      .string(3, str(p.description))
      .string(4, str(p.name))
      .string(query ? 6 : 5, str(p.type))
      .bool(query ? 20 : 19, p.uniqueItems === true)
      .finish();
    const nonBody = new ProtoWriter().message(query ? 3 : 4, sub).finish();
    parameter = new ProtoWriter().message(2, nonBody).finish();
  }
  return new ProtoWriter().message(1, parameter).finish();
}

function encodeOperation(op: Record<string, unknown>): Uint8Array {
  const w = new ProtoWriter();
  w.strings(1, (op.tags as string[] | undefined) ?? []);
  w.string(3, str(op.description));
  w.string(5, str(op.operationId));
  w.strings(6, (op.produces as string[] | undefined) ?? []);
  w.strings(7, (op.consumes as string[] | undefined) ?? []);
  for (const p of (op.parameters as unknown[] | undefined) ?? []) if (isPlainObject(p)) w.message(8, encodeParameter(p));
  if (isPlainObject(op.responses)) {
    const responses = new ProtoWriter();
    for (const [code, r] of Object.entries(op.responses)) {
      if (!isPlainObject(r)) continue;
      const response = new ProtoWriter()
        .string(1, str(r.description))
        .message(2, isPlainObject(r.schema) ? new ProtoWriter().message(1, encodeSchema(r.schema)).finish() : undefined)
        .finish();
      const value = new ProtoWriter().message(1, response).finish();
      responses.message(1, new ProtoWriter().string(1, code).message(2, value).finish());
    }
    w.message(9, responses.finish());
  }
  w.strings(10, (op.schemes as string[] | undefined) ?? []);
  vendorExtensions(w, 13, op);
  return w.finish();
}

const PATH_ITEM_FIELDS: Record<string, number> = { get: 2, put: 3, post: 4, delete: 5, options: 6, head: 7, patch: 8 };

/** Encodes a Swagger 2.0 document object as `openapi.v2.Document`. */
export function encodeDocument(doc: Record<string, unknown>): Uint8Array {
  const w = new ProtoWriter();
  w.string(1, str(doc.swagger));
  if (isPlainObject(doc.info)) w.message(2, new ProtoWriter().string(1, str(doc.info.title)).string(2, str(doc.info.version)).finish());
  if (isPlainObject(doc.paths)) {
    const paths = new ProtoWriter();
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!isPlainObject(item)) continue;
      const pi = new ProtoWriter();
      for (const [method, field] of Object.entries(PATH_ITEM_FIELDS)) {
        if (isPlainObject(item[method])) pi.message(field, encodeOperation(item[method]));
      }
      paths.message(2, new ProtoWriter().string(1, path).message(2, pi.finish()).finish());
    }
    w.message(8, paths.finish());
  }
  if (isPlainObject(doc.definitions)) {
    const defs = new ProtoWriter();
    for (const [name, schema] of Object.entries(doc.definitions)) {
      if (isPlainObject(schema)) defs.message(1, new ProtoWriter().string(1, name).message(2, encodeSchema(schema)).finish());
    }
    w.message(9, defs.finish());
  }
  if (Array.isArray(doc.security)) {
    for (const req of doc.security) {
      if (!isPlainObject(req)) continue;
      const r = new ProtoWriter();
      for (const [name, scopes] of Object.entries(req)) {
        const arr = new ProtoWriter().strings(1, Array.isArray(scopes) ? (scopes as string[]) : []).finish();
        r.message(1, new ProtoWriter().string(1, name).message(2, arr).finish());
      }
      w.message(12, r.finish());
    }
  }
  if (isPlainObject(doc.securityDefinitions)) {
    const defs = new ProtoWriter();
    for (const [name, d] of Object.entries(doc.securityDefinitions)) {
      if (!isPlainObject(d)) continue;
      const apiKey = new ProtoWriter().string(1, str(d.type)).string(2, str(d.name)).string(3, str(d.in)).string(4, str(d.description)).finish();
      const item = new ProtoWriter().message(2, apiKey).finish();
      defs.message(1, new ProtoWriter().string(1, name).message(2, item).finish());
    }
    w.message(13, defs.finish());
  }
  return w.finish();
}
