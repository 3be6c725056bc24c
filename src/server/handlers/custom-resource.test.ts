// Custom resources over HTTPS, as kube-apiserver serves them: server-side apply through the
// version's schema, field validation by pruning, the patch types they accept, media types
// without the binary form, and the warning of a deprecated version.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { binarySerializer } from '../../codec/binary.js';
import { SerializerSet } from '../../codec/serializer.js';
import { metaGroup, protobufMediaType } from '../../naming/index.js';
import { buildResourceTable, type DefaultResourceTable } from '../../registry/index.js';
import { widgetStrategy } from '../../testing/registry.js';
import type { ResourceDefinition } from '../../rest/index.js';
import { pruneObject } from '../../schema/crd/index.js';
import { MemoryStorage } from '../../storage/index.js';
import { startTestServer, testDefinitions, type TestServer } from '../../testing/api-server.js';

const GROUP = 'stable.example.com';
const SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        cronSpec: { type: 'string' },
        replicas: { type: 'integer' },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
        config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
    status: { type: 'object', properties: { phase: { type: 'string' } } },
  },
};
const DEPRECATION = `${GROUP}/v1beta1 CronTab is deprecated; use ${GROUP}/v1 CronTab`;

function crontabs(version: string, deprecationWarning?: string, schema: JSONSchemaProps | null = SCHEMA): ResourceDefinition {
  const base = widgetStrategy();
  // As the custom resource strategy does, the stored object keeps only what the schema declares.
  const strategy = widgetStrategy({
    prepareForCreate(obj) {
      base.prepareForCreate(obj);
      if (schema) pruneObject(obj, schema);
    },
    prepareForUpdate(obj, old) {
      base.prepareForUpdate(obj, old);
      if (schema) pruneObject(obj, schema);
    },
    defaults() {},
    validate: () => [],
    validateUpdate: () => [],
    selectableFields: () => ({}),
    fieldSelectorKeys: [],
    scale: undefined,
    tracksGeneration: true,
  });
  const def: ResourceDefinition = {
    group: GROUP,
    version,
    resource: 'crontabs',
    kind: 'CronTab',
    singularName: 'crontab',
    namespaced: true,
    shortNames: ['ct'],
    categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [{ name: 'status', kind: 'CronTab', verbs: ['get', 'patch', 'update'], serving: { by: 'status' } }],
    preferred: version === 'v1',
    storage: { group: GROUP, resource: 'crontabs', version: 'v1' },
    strategy,
    customResource: { crdName: `crontabs.${GROUP}`, crdUID: '7d5c0f8e-0000-4000-8000-000000000001', schema: schema ?? undefined, deprecationWarning },
  };
  if (version !== 'v1') {
    def.conversion = {
      toStorage: (obj) => ({ ...obj, apiVersion: `${GROUP}/v1` }),
      fromStorage: (obj) => ({ ...obj, apiVersion: `${GROUP}/${version}` }),
    };
  }
  return def;
}

/** A custom resource whose version has no schema: everything is kept, lists are atomic. */
function things(): ResourceDefinition {
  const def = crontabs('v1', undefined, null);
  return { ...def, resource: 'things', kind: 'Thing', singularName: 'thing', shortNames: [], subresources: [], storage: { group: GROUP, resource: 'things', version: 'v1' }, customResource: { crdName: `things.${GROUP}`, crdUID: 'u2' } };
}

let t: TestServer;
let table: DefaultResourceTable;
before(async () => {
  const serializers = new SerializerSet();
  serializers.register(binarySerializer());
  table = buildResourceTable([...testDefinitions(), crontabs('v1'), crontabs('v1beta1', DEPRECATION), things()], new MemoryStorage());
  t = await startTestServer({ table, serializers });
  const ns = await t.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } } });
  assert.equal(ns.status, 201, ns.body);
});
after(async () => {
  await t.close();
  await table.stop();
});

const CT = `/apis/${GROUP}/v1/namespaces/default/crontabs`;
const CT_BETA = `/apis/${GROUP}/v1beta1/namespaces/default/crontabs`;
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

function crontab(name: string, spec: Record<string, unknown>, apiVersion = `${GROUP}/v1`): KubeObject {
  return { apiVersion, kind: 'CronTab', metadata: { name }, spec };
}

function warnings(headers: Record<string, string | string[] | undefined>): string[] {
  const w = headers.warning;
  return w === undefined ? [] : Array.isArray(w) ? w : [w];
}

function managers(obj: KubeObject): { manager?: string; operation?: string; apiVersion?: string; fieldsV1?: unknown }[] {
  return (obj.metadata?.managedFields ?? []).map((e) => ({ manager: e.manager, operation: e.operation, apiVersion: e.apiVersion, fieldsV1: e.fieldsV1 }));
}

describe('server-side apply of a custom resource', () => {
  it('two managers share a list-map by its keys and a set by its values; each entry records its version', async () => {
    const a = await t.request('PATCH', `${CT}/merge?fieldManager=a`, {
      body: JSON.stringify(crontab('merge', { ports: [{ name: 'http', port: 80 }], tags: ['x'] })),
      headers: APPLY,
    });
    assert.equal(a.status, 201, a.body);
    const b = await t.request('PATCH', `${CT_BETA}/merge?fieldManager=b`, {
      body: JSON.stringify(crontab('merge', { ports: [{ name: 'metrics', port: 9090 }], tags: ['y'] }, `${GROUP}/v1beta1`)),
      headers: APPLY,
    });
    assert.equal(b.status, 200, b.body);
    const got = b.json();
    assert.equal(got.apiVersion, `${GROUP}/v1beta1`);
    assert.deepEqual(got.spec, { ports: [{ name: 'http', port: 80 }, { name: 'metrics', port: 9090 }], tags: ['x', 'y'] });
    assert.deepEqual(managers(got), [
      { manager: 'a', operation: 'Apply', apiVersion: `${GROUP}/v1`, fieldsV1: { 'f:spec': { 'f:ports': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } }, 'f:tags': { 'v:"x"': {} } } } },
      { manager: 'b', operation: 'Apply', apiVersion: `${GROUP}/v1beta1`, fieldsV1: { 'f:spec': { 'f:ports': { 'k:{"name":"metrics"}': { '.': {}, 'f:name': {}, 'f:port': {} } }, 'f:tags': { 'v:"y"': {} } } } },
    ]);
    // a gives up its port: only its entry goes.
    const c = await t.request('PATCH', `${CT}/merge?fieldManager=a`, { body: JSON.stringify(crontab('merge', { tags: ['x'] })), headers: APPLY });
    assert.equal(c.status, 200, c.body);
    assert.deepEqual(c.json().spec, { ports: [{ name: 'metrics', port: 9090 }], tags: ['x', 'y'] });
  });

  it('an atomic map conflicts with its owner: 409 with the field, then force takes it over', async () => {
    const a = await t.request('PATCH', `${CT}/atomic?fieldManager=a`, { body: JSON.stringify(crontab('atomic', { selector: { app: 'x' }, replicas: 1 })), headers: APPLY });
    assert.equal(a.status, 201, a.body);
    const conflict = await t.request('PATCH', `${CT}/atomic?fieldManager=b`, { body: JSON.stringify(crontab('atomic', { selector: { tier: 'y' }, replicas: 2 })), headers: APPLY });
    assert.equal(conflict.status, 409, conflict.body);
    const status = conflict.json() as { message?: string; reason?: string; details?: { causes?: unknown[] } };
    assert.equal(status.reason, 'Conflict');
    assert.equal(status.message, 'Apply failed with 2 conflicts: conflicts with "a":\n- .spec.replicas\n- .spec.selector');
    assert.deepEqual(status.details?.causes, [
      { reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.replicas' },
      { reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.selector' },
    ]);
    const forced = await t.request('PATCH', `${CT}/atomic?fieldManager=b&force=true`, { body: JSON.stringify(crontab('atomic', { selector: { tier: 'y' }, replicas: 2 })), headers: APPLY });
    assert.equal(forced.status, 200, forced.body);
    assert.deepEqual(forced.json().spec, { selector: { tier: 'y' }, replicas: 2 });
    assert.deepEqual(managers(forced.json()).map((m) => m.manager), ['b']);
  });

  // The configuration as sent names the object in the message: it has no namespace yet.
  it('a field the schema does not declare fails the apply; a custom resource without a schema keeps it, with atomic lists', async () => {
    const refused = await t.request('PATCH', `${CT}/undeclared?fieldManager=a`, { body: JSON.stringify(crontab('undeclared', { bogus: 1 })), headers: APPLY });
    assert.equal(refused.status, 500, refused.body);
    assert.equal(refused.json().message, `failed to create typed patch object (/undeclared; ${GROUP}/v1, Kind=CronTab): .spec.bogus: field not declared in schema`);
    assert.equal((await t.request('GET', `${CT}/undeclared`)).status, 404);
    const THINGS = `/apis/${GROUP}/v1/namespaces/default/things`;
    const thing = (ports: unknown[]) => JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Thing', metadata: { name: 'x' }, spec: { bogus: 1, ports } });
    const a = await t.request('PATCH', `${THINGS}/x?fieldManager=a`, { body: thing([{ name: 'http' }]), headers: APPLY });
    assert.equal(a.status, 201, a.body);
    const b = await t.request('PATCH', `${THINGS}/x?fieldManager=b`, { body: thing([{ name: 'metrics' }]), headers: APPLY });
    assert.equal(b.status, 409, b.body);
    assert.equal(b.json().message, 'Apply failed with 1 conflict: conflict with "a": .spec.ports');
  });

  it('a non-apply write records list-map entries by key, and an apply then shares them', async () => {
    const created = await t.request('POST', CT, { body: crontab('updated', { ports: [{ name: 'http', port: 80 }] }), headers: { 'User-Agent': 'kubectl-create/v1.27' } });
    assert.equal(created.status, 201, created.body);
    assert.deepEqual(managers(created.json())[0]?.fieldsV1, { 'f:spec': { '.': {}, 'f:ports': { '.': {}, 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } } } });
    const applied = await t.request('PATCH', `${CT}/updated?fieldManager=a`, { body: JSON.stringify(crontab('updated', { ports: [{ name: 'grpc', port: 81 }] })), headers: APPLY });
    assert.equal(applied.status, 200, applied.body);
    assert.deepEqual(applied.json().spec, { ports: [{ name: 'http', port: 80 }, { name: 'grpc', port: 81 }] });
  });

  it('hostile configurations: __proto__ keys stay ordinary, a too deep document is a 400, the process stays sound', async () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const body = `{"apiVersion":"${GROUP}/v1","kind":"CronTab","metadata":{"name":"proto"},"spec":{"config":{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}}}`;
    const r = await t.request('PATCH', `${CT}/proto?fieldManager=a`, { body, headers: APPLY });
    assert.equal(r.status, 201, r.body);
    assert.match(r.body, /"config":\{"__proto__":\{"polluted":true\},"constructor":\{"prototype":\{"x":1\}\}\}/);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    // A key named __proto__ where the schema declares none is refused like any other.
    const undeclared = await t.request('PATCH', `${CT}/proto2?fieldManager=a`, { body: body.replace('"config":', '"__proto__":'), headers: APPLY });
    assert.equal(undeclared.status, 500, undeclared.body);
    assert.match(String(undeclared.json().message), /\.spec\.__proto__: field not declared in schema/);
    let deep = '1';
    for (let i = 0; i < 150; i++) deep = `{"a":${deep}}`;
    const tooDeep = await t.request('PATCH', `${CT}/deep?fieldManager=a`, { body: `{"apiVersion":"${GROUP}/v1","kind":"CronTab","metadata":{"name":"deep"},"spec":{"config":${deep}}}`, headers: APPLY });
    assert.ok(tooDeep.status >= 400 && tooDeep.status < 500, tooDeep.body);
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), before);
    assert.equal((await t.request('GET', `${CT}/proto`)).status, 200);
  });
});

describe('patches of a custom resource', () => {
  before(async () => {
    const r = await t.request('POST', CT, { body: crontab('patched', { cronSpec: '* * * * *', replicas: 1 }) });
    assert.equal(r.status, 201, r.body);
  });

  it('strategic merge patch is 415 listing the patch types custom resources accept', async () => {
    const r = await t.request('PATCH', `${CT}/patched`, { body: '{"spec":{"replicas":2}}', headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
    assert.equal(r.status, 415, r.body);
    const status = r.json();
    assert.equal(status.reason, 'UnsupportedMediaType');
    assert.equal(status.message, 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
    const other = await t.request('PATCH', `${CT}/patched`, { body: '{}', headers: { 'Content-Type': 'application/json' } });
    assert.equal(other.status, 415, other.body);
    assert.equal(other.json().message, status.message);
    assert.equal((await t.request('GET', `${CT}/patched`)).json().spec?.toString(), '[object Object]');
  });

  it('merge patch and JSON patch work; a built-in kind still takes a strategic merge patch', async () => {
    const merged = await t.request('PATCH', `${CT}/patched`, { body: '{"spec":{"replicas":3,"tags":["a"]}}', headers: MERGE });
    assert.equal(merged.status, 200, merged.body);
    assert.deepEqual(merged.json().spec, { cronSpec: '* * * * *', replicas: 3, tags: ['a'] });
    const json = await t.request('PATCH', `${CT}/patched`, { body: '[{"op":"replace","path":"/spec/replicas","value":4},{"op":"add","path":"/spec/tags/-","value":"b"}]', headers: { 'Content-Type': 'application/json-patch+json' } });
    assert.equal(json.status, 200, json.body);
    assert.deepEqual(json.json().spec, { cronSpec: '* * * * *', replicas: 4, tags: ['a', 'b'] });
    const cm = await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'smp' }, data: { a: '1' } } });
    assert.equal(cm.status, 201, cm.body);
    const smp = await t.request('PATCH', '/api/v1/namespaces/default/configmaps/smp', { body: '{"data":{"b":"2"}}', headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
    assert.equal(smp.status, 200, smp.body);
  });

  it('a body of another patch type than its Content-Type says is refused, and changes nothing', async () => {
    const before = (await t.request('GET', `${CT}/patched`)).json();
    const jsonPatchBody = '[{"op":"replace","path":"/spec/replicas","value":9}]';
    const cases: [string, string, number, RegExp][] = [
      ['application/merge-patch+json', jsonPatchBody, 422, /couldn't get version\/kind; json parse error: json: cannot unmarshal array into Go value of type /],
      ['application/json-patch+json', '{"spec":{"replicas":9}}', 400, /^error decoding patch: json: cannot unmarshal object into Go value of type \[\]handlers\.jsonPatchOp$/],
      ['application/apply-patch+yaml', jsonPatchBody, 400, /^error decoding YAML: cannot unmarshal array into an object$/],
    ];
    for (const [contentType, body, code, message] of cases) {
      const r = await t.request('PATCH', `${CT}/patched?fieldManager=m`, { body, headers: { 'Content-Type': contentType } });
      assert.equal(r.status, code, `${contentType}: ${r.body}`);
      assert.match(String(r.json().message), message);
    }
    const after = (await t.request('GET', `${CT}/patched`)).json();
    assert.equal(after.metadata?.resourceVersion, before.metadata?.resourceVersion);
  });

  it('an apply body of another version or kind is refused', async () => {
    const r = await t.request('PATCH', `${CT}/patched?fieldManager=a`, { body: JSON.stringify({ ...crontab('patched', {}), kind: 'Other' }), headers: APPLY });
    assert.equal(r.status, 400, r.body);
    assert.equal(r.json().message, `invalid object type: ${GROUP}/v1, Kind=Other`);
  });
});

describe('field validation of a custom resource', () => {
  it('duplicate fields: Strict is 400 on create, 422 naming the patched object on a patch; Warn warns', async () => {
    const body = `{"apiVersion":"${GROUP}/v1","kind":"CronTab","metadata":{"name":"dup"},"spec":{"replicas":1,"replicas":2}}`;
    const strict = await t.request('POST', `${CT}?fieldValidation=Strict`, { body, headers: { 'Content-Type': 'application/json' } });
    assert.equal(strict.status, 400, strict.body);
    assert.equal(strict.json().reason, 'BadRequest');
    assert.equal(strict.json().message, 'CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: duplicate field "spec.replicas"');
    const warn = await t.request('POST', `${CT}?fieldValidation=Warn`, { body, headers: { 'Content-Type': 'application/json' } });
    assert.equal(warn.status, 201, warn.body);
    assert.deepEqual(warnings(warn.headers), ['299 - "duplicate field \\"spec.replicas\\""']);
    const patch = await t.request('PATCH', `${CT}/dup?fieldValidation=Strict`, { body: '{"spec":{"cronSpec":"a","cronSpec":"b"}}', headers: MERGE });
    assert.equal(patch.status, 422, patch.body);
    assert.match(String(patch.json().message), /^ "" is invalid: patch: Invalid value: ".*": strict decoding error: duplicate field "spec.cronSpec"$/);
    const ignored = await t.request('PATCH', `${CT}/dup?fieldValidation=Ignore`, { body: '{"spec":{"cronSpec":"a","cronSpec":"b"}}', headers: MERGE });
    assert.equal(ignored.status, 200, ignored.body);
    assert.deepEqual(warnings(ignored.headers), []);
  });

  // Unknown fields are what pruning removes.
  it('unknown fields: Strict 400 on create and 422 on patch, Warn warns, Ignore is silent; preserved fields are known', async () => {
    const obj = crontab('unknown', { replicas: 1, bogus: true, config: { anything: 1 } });
    const strict = await t.request('POST', `${CT}?fieldValidation=Strict`, { body: obj });
    assert.equal(strict.status, 400, strict.body);
    assert.equal(strict.json().message, 'CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field "spec.bogus"');
    const warn = await t.request('POST', CT, { body: obj });
    assert.equal(warn.status, 201, warn.body);
    assert.deepEqual(warnings(warn.headers), ['299 - "unknown field \\"spec.bogus\\""']);
    assert.deepEqual(warn.json().spec, { replicas: 1, config: { anything: 1 } }, 'the unknown field is pruned, the preserved one kept');
    const patch = await t.request('PATCH', `${CT}/unknown?fieldValidation=Strict`, { body: '{"spec":{"other":1}}', headers: MERGE });
    assert.equal(patch.status, 422, patch.body);
    assert.match(String(patch.json().message), /strict decoding error: unknown field "spec.other"$/);
    const ignored = await t.request('PUT', `${CT}/unknown?fieldValidation=Ignore`, { body: { ...warn.json(), spec: { other: 1 } } });
    assert.equal(ignored.status, 200, ignored.body);
    assert.deepEqual(warnings(ignored.headers), []);
  });

  it('metadata fields ObjectMeta lacks are unknown fields, with or without a schema', async () => {
    const body = { apiVersion: `${GROUP}/v1`, kind: 'CronTab', metadata: { name: 'meta', foo: 1 }, spec: {} };
    const strict = await t.request('POST', `${CT}?fieldValidation=Strict`, { body });
    assert.equal(strict.status, 400, strict.body);
    assert.equal(strict.json().message, 'CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field "metadata.foo"');
    assert.equal((await t.request('GET', `${CT}/meta`)).status, 404);
    const warn = await t.request('POST', `/apis/${GROUP}/v1/namespaces/default/things`, { body: { ...body, kind: 'Thing' } });
    assert.equal(warn.status, 201, warn.body);
    assert.deepEqual(warnings(warn.headers), ['299 - "unknown field \\"metadata.foo\\""']);
  });

  it('a custom resource without a schema has no unknown fields', async () => {
    const THINGS = `/apis/${GROUP}/v1/namespaces/default/things`;
    const r = await t.request('POST', `${THINGS}?fieldValidation=Strict`, { body: { apiVersion: `${GROUP}/v1`, kind: 'Thing', metadata: { name: 'free' }, spec: { anything: 1 } } });
    assert.equal(r.status, 201, r.body);
  });
});

describe('media types of a custom resource', () => {
  before(async () => {
    const r = await t.request('POST', CT, { body: crontab('media', { replicas: 1 }) });
    assert.equal(r.status, 201, r.body);
  });
  const pb = () => protobufMediaType();

  it('no binary form: Accept of only the binary type is 406, with JSON as fallback it is JSON', async () => {
    const only = await t.request('GET', `${CT}/media`, { headers: { Accept: pb() } });
    assert.equal(only.status, 406, only.body);
    assert.equal(JSON.parse(only.body).reason, 'NotAcceptable');
    const list = await t.request('GET', CT, { headers: { Accept: pb() } });
    assert.equal(list.status, 406, list.body);
    const watch = await t.request('GET', `${CT}?watch=1&timeoutSeconds=1`, { headers: { Accept: `${pb()};stream=watch` } });
    assert.equal(watch.status, 406, watch.body);
    const fallback = await t.request('GET', `${CT}/media`, { headers: { Accept: `${pb()}, application/json` } });
    assert.equal(fallback.status, 200, fallback.body);
    assert.equal(fallback.headers['content-type'], 'application/json');
    // A built-in kind of the same server still answers in the binary form.
    const cm = await t.request('GET', '/api/v1/namespaces/default/configmaps', { headers: { Accept: pb() } });
    assert.equal(cm.status, 200, cm.body);
  });

  it('a binary body is 415 listing JSON and YAML', async () => {
    const r = await t.request('POST', CT, { body: Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x00]), headers: { 'Content-Type': pb() } });
    assert.equal(r.status, 415, r.body);
    assert.equal(r.json().message, 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
  });

  it('Table and PartialObjectMetadata still work', async () => {
    const table = await t.request('GET', CT, { headers: { Accept: `application/json;as=Table;g=${metaGroup()};v=v1` } });
    assert.equal(table.status, 200, table.body);
    assert.equal(table.json().kind, 'Table');
    const meta = await t.request('GET', `${CT}/media`, { headers: { Accept: `application/json;as=PartialObjectMetadata;g=${metaGroup()};v=v1` } });
    assert.equal(meta.status, 200, meta.body);
    assert.equal(meta.json().kind, 'PartialObjectMetadata');
    assert.equal(meta.json().spec, undefined);
  });

  it('YAML in and out', async () => {
    const yaml = `apiVersion: ${GROUP}/v1\nkind: CronTab\nmetadata:\n  name: yaml\nspec:\n  cronSpec: "*/5 * * * *"\n  replicas: 2\n`;
    const created = await t.request('POST', CT, { body: yaml, headers: { 'Content-Type': 'application/yaml', Accept: 'application/yaml' } });
    assert.equal(created.status, 201, created.body);
    assert.equal(created.headers['content-type'], 'application/yaml');
    assert.match(created.body, /^apiVersion: stable\.example\.com\/v1\n/m);
    assert.match(created.body, /\n {2}cronSpec: ["']\*\/5 \* \* \* \*["']\n {2}replicas: 2\n/);
    const read = await t.request('GET', `${CT}/yaml`);
    assert.deepEqual(read.json().spec, { cronSpec: '*/5 * * * *', replicas: 2 });
  });
});

describe('a deprecated version of a custom resource', () => {
  it('warns on every request to it, errors included; the other version does not', async () => {
    const expected = [`299 - ${JSON.stringify(DEPRECATION)}`];
    const created = await t.request('POST', CT_BETA, { body: crontab('old', {}, `${GROUP}/v1beta1`) });
    assert.equal(created.status, 201, created.body);
    assert.deepEqual(warnings(created.headers), expected);
    for (const path of [CT_BETA, `${CT_BETA}/old`, `${CT_BETA}/missing`, `${CT_BETA}/old/status`]) {
      const r = await t.request('GET', path);
      assert.deepEqual(warnings(r.headers), expected, `${path}: ${r.status}`);
    }
    const conflict = await t.request('PATCH', `${CT_BETA}/old`, { body: '{}', headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
    assert.equal(conflict.status, 415);
    assert.deepEqual(warnings(conflict.headers), expected);
    assert.deepEqual(warnings((await t.request('GET', `${CT}/old`)).headers), []);
  });
});
