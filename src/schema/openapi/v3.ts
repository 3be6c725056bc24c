// OpenAPI 3 documents, one per group-version (`/openapi/v3/apis/<group>/<version>`),
// and the index of them (`/openapi/v3`) with a content hash in every URL.

import { createHash } from 'node:crypto';
import { productName } from '../../naming/index.js';
import { definitionsFor, reachableIds, refTo, type JsonSchema } from './definitions.js';
import { buildPaths, groupVersionPath, operationExtensions, type OpenApiResource, type Operation, type Parameter } from './paths.js';
import { customMetaRoots, metaRoots, rootsOf } from './roots.js';
import { withCustomDefinitions } from './custom.js';

export interface OpenApiV3Document {
  json: Buffer;
  /** Upper-case hex SHA-512 of the JSON bytes, as in `serverRelativeURL`'s `hash`. */
  hash: string;
}

export interface OpenApiV3 {
  index: Buffer;
  /** Group-version path without the leading slash (`api/v1`, `apis/apps/v1`) to document. */
  documents: Map<string, OpenApiV3Document>;
}

function parameterV3(p: Parameter): JsonSchema {
  const out: JsonSchema = { name: p.name, in: p.in, description: p.description, schema: { type: p.type, uniqueItems: true } };
  if (p.required) out.required = true;
  return out;
}

function contentOf(mediaTypes: string[], schema: JsonSchema): JsonSchema {
  return Object.fromEntries(mediaTypes.map((m) => [m, { schema }]));
}

function operationV3(op: Operation): JsonSchema {
  const out: JsonSchema = {
    tags: [op.tag],
    description: op.description ?? op.operationId,
    operationId: op.operationId,
    parameters: op.parameters.map(parameterV3),
  };
  if (op.body) {
    out.requestBody = { content: contentOf(op.consumes, refTo(op.body, 3)), required: op.method !== 'delete' };
  }
  const responses: Record<string, JsonSchema> = {};
  for (const [code, id] of Object.entries(op.responses)) {
    if (id === undefined) continue;
    const schema = id === 'string' ? { type: 'string' } : refTo(id, 3);
    responses[code] = { description: code === '201' ? 'Created' : code === '202' ? 'Accepted' : 'OK', content: contentOf(op.produces, schema) };
  }
  responses['401'] = { description: 'Unauthorized' };
  out.responses = responses;
  Object.assign(out, operationExtensions(op));
  return out;
}

function sha512(bytes: Buffer): string {
  return createHash('sha512').update(bytes).digest('hex').toUpperCase();
}

export function buildV3(resources: readonly OpenApiResource[], version: string): OpenApiV3 {
  const byGroupVersion = new Map<string, OpenApiResource[]>();
  for (const r of resources) {
    const key = groupVersionPath(r.group, r.version).slice(1);
    const list = byGroupVersion.get(key) ?? [];
    list.push(r);
    byGroupVersion.set(key, list);
  }
  const documents = new Map<string, OpenApiV3Document>();
  for (const key of [...byGroupVersion.keys()].sort()) {
    const group = byGroupVersion.get(key)!;
    const paths: Record<string, JsonSchema> = {};
    for (const entry of buildPaths(group)) {
      const item: JsonSchema = {};
      for (const op of entry.operations) item[op.method] = operationV3(op);
      paths[entry.path] = item;
    }
    // Group-versions of kinds the catalog does not describe get no document.
    if (Object.keys(paths).length === 0) continue;
    const product = productName() === 'kubernetes' ? 'Kubernetes' : 'Orch';
    // A group-version of custom resources is documented as the CRD builder documents it.
    const custom = group.every((r) => r.customResource);
    const doc = custom
      ? {
          openapi: '3.0.0',
          info: { title: `${product} CRD Swagger`, version: 'v0.1.0' },
          paths,
          components: { schemas: withCustomDefinitions(definitionsFor(reachableIds([...rootsOf(group), ...customMetaRoots()]), 3), group, 3) },
        }
      : {
          openapi: '3.0.0',
          info: { title: product, version },
          paths,
          components: {
            schemas: withCustomDefinitions(definitionsFor(reachableIds([...rootsOf(group), ...metaRoots()]), 3), group, 3),
            securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } },
          },
        };
    const json = Buffer.from(JSON.stringify(doc));
    documents.set(key, { json, hash: sha512(json) });
  }
  const index: Record<string, { serverRelativeURL: string }> = {};
  for (const [key, d] of documents) index[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${d.hash}` };
  return { index: Buffer.from(JSON.stringify({ paths: index })), documents };
}
