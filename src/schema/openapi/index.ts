// The OpenAPI documents of the served resources, built once per set of resources and
// flavor and cached as bytes, and the HTTP answers for `/openapi/v2` and `/openapi/v3/...`.

import { flavor } from '../../naming/index.js';
import type { OpenApiResource } from './paths.js';
import { buildV2, type OpenApiV2 } from './v2.js';
import { buildV3, type OpenApiV3, type OpenApiV3Document } from './v3.js';
import { createHash } from 'node:crypto';

export type { OpenApiResource } from './paths.js';
export type { OpenApiV2 } from './v2.js';
export type { OpenApiV3Document } from './v3.js';
export { encodeDocument } from './v2.js';

/** The version reported in `info.version`. */
const DEFAULT_VERSION = 'v1.27.16';

/** What clients ask for. */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
/** What the answer is labelled: `@` is not valid in a media type, so Kubernetes answers with a dot. */
export const OPENAPI_V2_PROTOBUF_RESPONSE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

interface Cached {
  key: string;
  v2?: OpenApiV2;
  v3?: OpenApiV3 & { indexEtag: string };
  lastModified: string;
}

let cache: Cached | undefined;

/** The JSON text of each custom resource schema seen, so that a signature costs one lookup per schema. */
const schemaText = new WeakMap<object, string>();

function schemaSignature(r: OpenApiResource): string {
  if (!r.customResource) return '';
  const schema = r.customResource.schema;
  if (!schema) return 'custom';
  let text = schemaText.get(schema);
  if (text === undefined) {
    text = createHash('sha256').update(JSON.stringify(schema)).digest('base64');
    schemaText.set(schema, text);
  }
  return `custom:${text}`;
}

function signature(resources: readonly OpenApiResource[], version: string): string {
  const parts = resources.map((r) =>
    [r.group, r.version, r.resource, r.kind, r.namespaced, r.verbs.join(','), r.subresources.map((s) => `${s.name}:${s.kind}:${s.group ?? ''}:${s.version ?? ''}:${s.verbs.join(',')}`).join(';'), schemaSignature(r)].join('|'),
  );
  return `${flavor()}\n${version}\n${parts.join('\n')}`;
}

function cached(resources: readonly OpenApiResource[], version: string): Cached {
  const key = signature(resources, version);
  if (!cache || cache.key !== key) cache = { key, lastModified: new Date().toUTCString() };
  return cache;
}

/** `/openapi/v2` as JSON and protobuf bytes, with its ETag. */
export function openapiV2(resources: readonly OpenApiResource[], version = DEFAULT_VERSION): OpenApiV2 {
  const c = cached(resources, version);
  c.v2 ??= buildV2(resources, version);
  return c.v2;
}

function v3(resources: readonly OpenApiResource[], version: string): OpenApiV3 & { indexEtag: string } {
  const c = cached(resources, version);
  if (!c.v3) {
    const built = buildV3(resources, version);
    c.v3 = { ...built, indexEtag: `"${createHash('sha512').update(built.index).digest('hex').toUpperCase()}"` };
  }
  return c.v3;
}

/** `/openapi/v3`: the group-versions and the hashed URLs of their documents. */
export function openapiV3Index(resources: readonly OpenApiResource[], version = DEFAULT_VERSION): { json: Buffer; etag: string } {
  const d = v3(resources, version);
  return { json: d.index, etag: d.indexEtag };
}

/** `/openapi/v3/<groupVersionPath>` (`api/v1`, `apis/apps/v1`), or undefined when not served. */
export function openapiV3Document(
  resources: readonly OpenApiResource[],
  groupVersionPath: string,
  version = DEFAULT_VERSION,
): OpenApiV3Document | undefined {
  return v3(resources, version).documents.get(groupVersionPath.replace(/^\/+|\/+$/g, ''));
}

/** A group-version's OpenAPI v3 document served by an aggregated API server, as fetched from it. */
export interface RemoteOpenApiDocument {
  json: Buffer;
  /** Upper-case hex SHA-512 of `json`. */
  hash: string;
}

/** The v3 index with the aggregated group-versions added (they are served from here too). */
function withRemoteDocuments(idx: { json: Buffer; etag: string }, remote: ReadonlyMap<string, RemoteOpenApiDocument>): { json: Buffer; etag: string } {
  if (remote.size === 0) return idx;
  const parsed = JSON.parse(idx.json.toString('utf8')) as { paths: Record<string, { serverRelativeURL: string }> };
  const paths = new Map(Object.entries(parsed.paths));
  for (const [key, d] of remote) if (!paths.has(key)) paths.set(key, { serverRelativeURL: `/openapi/v3/${key}?hash=${d.hash}` });
  const json = Buffer.from(JSON.stringify({ paths: Object.fromEntries([...paths].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) }));
  return { json, etag: `"${createHash('sha512').update(json).digest('hex').toUpperCase()}"` };
}

/** The answer shape of the server's raw handlers. */
export interface OpenApiAnswer {
  code: number;
  contentType: string;
  body: string | Uint8Array;
  headers?: Record<string, string>;
}

function notAcceptable(): OpenApiAnswer {
  const status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `only the following media types are accepted: application/json, ${OPENAPI_V2_PROTOBUF}`,
    reason: 'NotAcceptable',
    code: 406,
  };
  return { code: 406, contentType: 'application/json', body: JSON.stringify(status) };
}

function wantsProtobuf(accept: string | undefined): boolean | undefined {
  if (!accept) return false;
  for (const part of accept.split(',')) {
    const type = part.split(';')[0].trim().toLowerCase();
    if (type === OPENAPI_V2_PROTOBUF || type === OPENAPI_V2_PROTOBUF_RESPONSE) return true;
    if (type === 'application/json' || type === '*/*' || type === 'application/*') return false;
  }
  return undefined;
}

function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  return ifNoneMatch !== undefined && ifNoneMatch.split(',').some((t) => t.trim() === etag || t.trim() === '*');
}

/**
 * A handler for `/openapi/v2`, `/openapi/v3` and `/openapi/v3/<group-version path>` over the
 * resources served at the time of the request. Answers undefined for other paths (404).
 */
export function openapiHandler(
  resources: () => readonly OpenApiResource[],
  opts: { version?: string; remote?: () => ReadonlyMap<string, RemoteOpenApiDocument> } = {},
): (path: string, query: URLSearchParams, accept: string | undefined, ifNoneMatch?: string) => Promise<OpenApiAnswer | undefined> {
  const version = opts.version ?? DEFAULT_VERSION;
  const remote = (): ReadonlyMap<string, RemoteOpenApiDocument> => opts.remote?.() ?? new Map();
  return async (path, query, accept, ifNoneMatch) => {
    const clean = path.replace(/\/+$/, '');
    if (clean === '/openapi/v2') {
      const proto = wantsProtobuf(accept);
      if (proto === undefined) return notAcceptable();
      const doc = openapiV2(resources(), version);
      const headers = { ETag: doc.etag, Vary: 'Accept', 'Last-Modified': cached(resources(), version).lastModified };
      if (etagMatches(ifNoneMatch, doc.etag)) return { code: 304, contentType: proto ? OPENAPI_V2_PROTOBUF_RESPONSE : 'application/json', body: '', headers };
      return proto
        ? { code: 200, contentType: OPENAPI_V2_PROTOBUF_RESPONSE, body: doc.protobuf, headers }
        : { code: 200, contentType: 'application/json', body: doc.json, headers };
    }
    if (clean === '/openapi/v3') {
      const idx = withRemoteDocuments(openapiV3Index(resources(), version), remote());
      const headers = { ETag: idx.etag, Vary: 'Accept' };
      if (etagMatches(ifNoneMatch, idx.etag)) return { code: 304, contentType: 'application/json', body: '', headers };
      return { code: 200, contentType: 'application/json', body: idx.json, headers };
    }
    if (clean.startsWith('/openapi/v3/')) {
      const gv = clean.slice('/openapi/v3/'.length);
      const doc = openapiV3Document(resources(), gv, version) ?? remote().get(gv.replace(/^\/+|\/+$/g, ''));
      if (!doc) return undefined;
      const etag = `"${doc.hash}"`;
      const headers: Record<string, string> = { ETag: etag, Vary: 'Accept' };
      const hash = query.get('hash');
      if (hash) {
        if (hash !== doc.hash) {
          // An outdated hash points the client at the current document.
          const location = `/openapi/v3/${gv}?hash=${doc.hash}`;
          return { code: 301, contentType: 'text/html; charset=utf-8', body: `<a href="${location}">Moved Permanently</a>.\n`, headers: { Location: location } };
        }
        headers['Cache-Control'] = 'public, immutable';
        headers.Expires = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
      }
      if (etagMatches(ifNoneMatch, etag)) return { code: 304, contentType: 'application/json', body: '', headers };
      return { code: 200, contentType: 'application/json', body: doc.json, headers };
    }
    return undefined;
  };
}
