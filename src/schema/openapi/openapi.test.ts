import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlavor, group } from '../../naming/index.js';
import { openapiHandler, openapiV2, openapiV3Document, openapiV3Index, OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_RESPONSE, type OpenApiResource } from './index.js';

const ALL = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function resources(): OpenApiResource[] {
  return [
    {
      group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, verbs: ALL,
      subresources: [
        { name: 'status', kind: 'Pod', verbs: ['get', 'patch', 'update'] },
        { name: 'eviction', kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] },
        { name: 'exec', kind: 'PodExecOptions', verbs: ['create', 'get'], connect: {} },
        { name: 'log', kind: 'Pod', verbs: ['get'], connect: { read: true } },
      ],
    },
    { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: ALL, subresources: [] },
    { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], subresources: [] },
    {
      group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true, verbs: ALL,
      subresources: [{ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] }],
    },
    { group: group('rbac.authorization'), version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false, verbs: ALL, subresources: [] },
    { group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true, verbs: ALL, subresources: [] },
  ];
}

// ---- a tiny protobuf reader, enough to walk the encoded document ----

type Fields = Map<number, (bigint | Uint8Array)[]>;

function readVarint(b: Uint8Array, pos: { i: number }): bigint {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const byte = b[pos.i++];
    result |= BigInt(byte & 0x7f) << shift;
    if (byte < 0x80) return result;
    shift += 7n;
  }
}

function decode(b: Uint8Array): Fields {
  const out: Fields = new Map();
  const pos = { i: 0 };
  while (pos.i < b.length) {
    const key = Number(readVarint(b, pos));
    const field = key >> 3;
    const wire = key & 7;
    let value: bigint | Uint8Array;
    if (wire === 0) value = readVarint(b, pos);
    else if (wire === 2) {
      const len = Number(readVarint(b, pos));
      value = b.subarray(pos.i, pos.i + len);
      pos.i += len;
    } else if (wire === 1) {
      value = b.subarray(pos.i, pos.i + 8);
      pos.i += 8;
    } else throw new Error(`unexpected wire type ${wire}`);
    const list = out.get(field) ?? [];
    list.push(value);
    out.set(field, list);
  }
  assert.equal(pos.i, b.length, 'message ends exactly at its length');
  return out;
}

const text = (v: bigint | Uint8Array | undefined): string => (v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : '');
const msg = (v: bigint | Uint8Array | undefined): Fields => decode(v instanceof Uint8Array ? v : new Uint8Array());
const all = (f: Fields, n: number): (bigint | Uint8Array)[] => f.get(n) ?? [];

/** NamedAny list to name -> parsed value (the YAML text is JSON here). */
function extensions(list: (bigint | Uint8Array)[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const e of list) {
    const named = msg(e);
    const any = msg(all(named, 2)[0]);
    out.set(text(all(named, 1)[0]), JSON.parse(text(all(any, 2)[0])));
  }
  return out;
}

test('the v2 protobuf document carries what kubectl 1.27 looks for', () => {
  setFlavor('kubernetes');
  const doc = decode(openapiV2(resources()).protobuf);
  assert.equal(text(all(doc, 1)[0]), '2.0');
  const paths = msg(all(doc, 8)[0]);
  const byPath = new Map(all(paths, 2).map((p) => [text(all(msg(p), 1)[0]), msg(all(msg(p), 2)[0])]));
  const item = byPath.get('/api/v1/namespaces/{namespace}/configmaps/{name}');
  assert.ok(item, 'configmap item path');
  const patch = msg(all(item, 8)[0]);
  assert.deepEqual(extensions(all(patch, 13)).get('x-kubernetes-group-version-kind'), { group: '', kind: 'ConfigMap', version: 'v1' });
  const queryNames = all(patch, 8).map((p) => {
    const nonBody = msg(all(msg(all(msg(p), 1)[0]), 2)[0]);
    return text(all(msg(all(nonBody, 3)[0]), 4)[0]);
  });
  assert.ok(queryNames.includes('fieldValidation'), `PATCH parameters: ${queryNames.join(',')}`);

  const defs = new Map(all(msg(all(doc, 9)[0]), 1).map((d) => [text(all(msg(d), 1)[0]), msg(all(msg(d), 2)[0])]));
  const pod = defs.get('io.k8s.api.core.v1.Pod');
  assert.ok(pod);
  assert.deepEqual(extensions(all(pod, 31)).get('x-kubernetes-group-version-kind'), [{ group: '', kind: 'Pod', version: 'v1' }]);
  const container = defs.get('io.k8s.api.core.v1.Container');
  assert.ok(container);
  assert.deepEqual(all(container, 19).map(text), ['name']);
  const props = new Map(all(msg(all(container, 25)[0]), 1).map((p) => [text(all(msg(p), 1)[0]), msg(all(msg(p), 2)[0])]));
  const ports = props.get('ports');
  assert.ok(ports);
  assert.equal(text(all(msg(all(ports, 22)[0]), 1)[0]), 'array');
  const itemsRef = msg(all(msg(all(ports, 23)[0]), 1)[0]);
  assert.equal(text(all(itemsRef, 1)[0]), '#/definitions/io.k8s.api.core.v1.ContainerPort');
  assert.deepEqual(extensions(all(ports, 31)).get('x-kubernetes-list-map-keys'), ['containerPort', 'protocol']);
  assert.equal(extensions(all(ports, 31)).get('x-kubernetes-patch-merge-key'), 'containerPort');
});

test('the v2 JSON document is self-contained and names things per flavor', () => {
  for (const f of ['orch', 'kubernetes'] as const) {
    setFlavor(f);
    const doc = JSON.parse(openapiV2(resources()).json.toString('utf8')) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
      definitions: Record<string, unknown>;
    };
    const prefix = f === 'orch' ? 'io.orch.' : 'io.k8s.';
    const refs = JSON.stringify(doc).match(/"\$ref":"#\/definitions\/[^"]+"/g) ?? [];
    assert.ok(refs.length > 100);
    for (const r of new Set(refs)) {
      const name = r.slice('"$ref":"#/definitions/'.length, -1);
      assert.ok(doc.definitions[name], `unresolved ${name}`);
      assert.ok(name.startsWith(prefix), name);
    }
    const ext = f === 'orch' ? 'x-orch-group-version-kind' : 'x-kubernetes-group-version-kind';
    const crPatch = doc.paths[`/apis/${group('rbac.authorization')}/v1/clusterroles/{name}`].patch;
    assert.deepEqual(crPatch[ext], { group: group('rbac.authorization'), kind: 'ClusterRole', version: 'v1' });
    assert.equal(JSON.stringify(doc).includes(f === 'orch' ? 'x-kubernetes-' : 'x-orch-'), false);
    assert.equal(Object.keys(doc.paths).some((p) => p.includes('widgets')), false, 'kinds outside the catalog are left out');
    assert.ok(doc.paths['/api/v1/pods'], 'list across namespaces');
    assert.ok(doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'].put);
  }
  setFlavor('orch');
});

test('v3: an index with hashed URLs and per group-version documents', async () => {
  setFlavor('kubernetes');
  const index = JSON.parse(openapiV3Index(resources()).json.toString('utf8')) as { paths: Record<string, { serverRelativeURL: string }> };
  assert.deepEqual(Object.keys(index.paths).sort(), ['api/v1', 'apis/apps/v1', 'apis/rbac.authorization.k8s.io/v1']);
  const url = index.paths['api/v1'].serverRelativeURL;
  const doc = openapiV3Document(resources(), 'api/v1');
  assert.ok(doc);
  assert.equal(url, `/openapi/v3/api/v1?hash=${doc.hash}`);
  const v3 = JSON.parse(doc.json.toString('utf8')) as {
    openapi: string;
    paths: Record<string, Record<string, { parameters: { name: string }[]; 'x-kubernetes-group-version-kind': unknown }>>;
    components: { schemas: Record<string, { properties?: Record<string, Record<string, unknown>>; required?: string[] }> };
  };
  assert.equal(v3.openapi, '3.0.0');
  const patch = v3.paths['/api/v1/namespaces/{namespace}/pods/{name}'].patch;
  assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: '', kind: 'Pod', version: 'v1' });
  assert.ok(patch.parameters.some((p) => p.name === 'fieldValidation'));
  assert.equal(Object.keys(v3.paths).some((p) => p.startsWith('/apis/')), false, 'only the core group-version');
  const spec = v3.components.schemas['io.k8s.api.core.v1.PodSpec'];
  assert.deepEqual(spec.properties?.containers.items, { $ref: '#/components/schemas/io.k8s.api.core.v1.Container' });
  assert.deepEqual(v3.components.schemas['io.k8s.api.core.v1.Pod'].properties?.spec, { allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.PodSpec' }], default: {} });
  const refs = doc.json.toString('utf8').match(/#\/components\/schemas\/[^"]+/g) ?? [];
  for (const r of new Set(refs)) assert.ok(v3.components.schemas[r.slice('#/components/schemas/'.length)], r);

  const handler = openapiHandler(() => resources());
  const hit = await handler('/openapi/v3/api/v1', new URLSearchParams({ hash: doc.hash }), 'application/json');
  assert.equal(hit?.code, 200);
  assert.equal(hit?.headers?.['Cache-Control'], 'public, immutable');
  const stale = await handler('/openapi/v3/api/v1', new URLSearchParams({ hash: 'OLD' }), 'application/json');
  assert.equal(stale?.code, 301);
  assert.equal(stale?.headers?.Location, url);
  assert.equal(await handler('/openapi/v3/apis/nope/v1', new URLSearchParams(), undefined), undefined);
  setFlavor('orch');
});

test('the handler negotiates JSON and protobuf for v2 and honours If-None-Match', async () => {
  setFlavor('kubernetes');
  const handler = openapiHandler(() => resources());
  const pb = await handler('/openapi/v2', new URLSearchParams(), `${OPENAPI_V2_PROTOBUF}, application/json`);
  assert.equal(pb?.contentType, OPENAPI_V2_PROTOBUF_RESPONSE);
  assert.ok(pb?.body instanceof Uint8Array && pb.body.length > 10000);
  const js = await handler('/openapi/v2', new URLSearchParams(), undefined);
  assert.equal(js?.contentType, 'application/json');
  const etag = js?.headers?.ETag;
  assert.match(etag ?? '', /^"[0-9A-F]{128}"$/);
  assert.equal((await handler('/openapi/v2', new URLSearchParams(), 'application/json', etag))?.code, 304);
  assert.equal((await handler('/openapi/v2', new URLSearchParams(), 'text/html'))?.code, 406);
  // Cached: the same bytes until the resources change.
  assert.equal(openapiV2(resources()).json, openapiV2(resources()).json);
  assert.notEqual(openapiV2(resources().slice(1)).json, openapiV2(resources()).json);
  setFlavor('orch');
});
