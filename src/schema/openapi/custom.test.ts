import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import { setFlavor } from '../../naming/index.js';
import { customDefinitionName, customKindSchema, customListSchema } from './custom.js';
import { encodeDocument, openapiHandler, openapiV2, openapiV3Document, openapiV3Index, type OpenApiResource } from './index.js';
import { operationIdWord } from './paths.js';

type Json = Record<string, unknown>;

const ALL = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const WIDGET_SCHEMA: JSONSchemaProps = {
  type: 'object',
  description: 'A widget.',
  properties: {
    spec: {
      type: 'object',
      description: 'What the widget should be.',
      required: ['size', 'note'],
      example: { size: 1 },
      externalDocs: { url: 'https://example.com' },
      properties: {
        size: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
        port: { 'x-kubernetes-int-or-string': true },
        note: { type: 'string', nullable: true, pattern: '^[a-z]+$' },
        enabled: { type: 'boolean', default: false },
        mode: { type: 'string', enum: ['a', 'b'], anyOf: [{ pattern: '^a' }, { pattern: '^b' }] },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
        raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'string' } } },
      },
      'x-kubernetes-validations': [{ rule: 'self.size < 10', message: 'too big' }],
    },
    status: { type: 'object', properties: { replicas: { type: 'integer' } } },
    metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } },
  },
};

function widgets(schema: JSONSchemaProps | undefined = WIDGET_SCHEMA, version = 'v1'): OpenApiResource {
  return {
    group: 'stable.example.com',
    version,
    resource: 'widgets',
    kind: 'Widget',
    namespaced: true,
    verbs: ALL,
    subresources: [
      { name: 'status', kind: 'Widget', verbs: ['get', 'patch', 'update'] },
      { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] },
    ],
    customResource: { schema },
  };
}

const KIND = { group: 'stable.example.com', version: 'v1', kind: 'Widget', resource: 'widgets' };
const props = (s: unknown): Record<string, Json> => (s as { properties: Record<string, Json> }).properties;

test('definition names reverse the group as Kubernetes does', () => {
  assert.equal(customDefinitionName('stable.example.com', 'v1', 'CronTab'), 'com.example.stable.v1.CronTab');
  assert.equal(customDefinitionName('cert-manager.io', 'v1', 'Certificate'), 'io.cert-manager.v1.Certificate');
  assert.equal(customDefinitionName('example', 'v1alpha1', 'Foo'), 'example.v1alpha1.Foo');
});

test('operation id words are formed as Kubernetes forms them', () => {
  const cases: [string, boolean, string][] = [
    ['stable.example.com', true, 'StableExampleCom'],
    ['stable.example.com', false, 'stableExampleCom'],
    ['cert-manager.io', true, 'CertManagerIo'],
    ['acme.cert-manager.io', false, 'acmeCertManagerIo'],
    ['k8s.example.com', true, 'K8sExampleCom'],
    ['2fa.example.com', false, 'FaExampleCom'],
    ['v1beta1', true, 'V1beta1'],
    ['rbac.authorization', true, 'RbacAuthorization'],
  ];
  for (const [input, capitalize, want] of cases) assert.equal(operationIdWord(input, capitalize), want, input);
});

test('v3: the CRD schema with ObjectMeta, type meta, unfolded int-or-string and embedded resources', () => {
  setFlavor('kubernetes');
  const s = customKindSchema({ ...KIND, schema: WIDGET_SCHEMA }, 3);
  assert.deepEqual(s['x-kubernetes-group-version-kind'], [{ group: 'stable.example.com', kind: 'Widget', version: 'v1' }]);
  assert.equal(s.description, 'A widget.');
  assert.deepEqual(Object.keys(props(s)), ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
  // The declared metadata schema is replaced by the reference.
  assert.deepEqual(props(s).metadata, {
    description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  });
  assert.equal(props(s).apiVersion.type, 'string');
  assert.match(String(props(s).kind.description), /^Kind is a string value representing the REST resource/);
  const spec = props(s).spec;
  assert.equal(spec.example, undefined, 'not part of a structural schema');
  assert.equal(spec.externalDocs, undefined);
  assert.deepEqual(spec.required, ['size', 'note']);
  assert.deepEqual(spec['x-kubernetes-validations'], [{ rule: 'self.size < 10', message: 'too big' }]);
  const fields = props(spec);
  assert.deepEqual(Object.keys(fields), ['enabled', 'mode', 'note', 'port', 'raw', 'size', 'tags', 'template']);
  assert.deepEqual(fields.size, { default: 3, type: 'integer', maximum: 10, minimum: 1 });
  assert.deepEqual(fields.enabled, { default: false, type: 'boolean' });
  assert.deepEqual(fields.port, { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
  assert.deepEqual(fields.note, { type: 'string', pattern: '^[a-z]+$', nullable: true });
  assert.deepEqual(fields.mode.anyOf, [{ pattern: '^a' }, { pattern: '^b' }]);
  assert.deepEqual(fields.raw, { type: 'object', properties: { known: { type: 'string' } }, 'x-kubernetes-preserve-unknown-fields': true });
  const template = fields.template;
  assert.deepEqual(Object.keys(props(template)), ['apiVersion', 'kind', 'metadata', 'spec']);
  assert.deepEqual(template.required, ['kind', 'apiVersion']);
  assert.match(String(props(template).apiVersion.description), /^apiVersion defines the versioned schema/);
  setFlavor('orch');
});

test('v3: an int-or-string with its own anyOf gets the types as a first allOf', () => {
  setFlavor('kubernetes');
  const root: JSONSchemaProps = { type: 'object', properties: { p: { 'x-kubernetes-int-or-string': true, anyOf: [{ maximum: 3 }, { pattern: 'x' }] }, q: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } } };
  const p = props(customKindSchema({ ...KIND, schema: root }, 3));
  assert.deepEqual(p.p.allOf, [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }]);
  assert.deepEqual(p.p.anyOf, [{ maximum: 3 }, { pattern: 'x' }]);
  assert.deepEqual(p.q.anyOf, [{ type: 'integer' }, { type: 'string' }], 'already in the pattern: left alone');
  assert.equal(p.q.allOf, undefined);
  setFlavor('orch');
});

test('v2: what Kubernetes strips when it publishes a CRD schema in Swagger 2.0', () => {
  setFlavor('kubernetes');
  // [case, the field's schema, what v2 publishes for it]
  const cases: [string, JSONSchemaProps, Json][] = [
    ['nullable loses its type, items and properties', { type: 'object', nullable: true, properties: { a: { type: 'string' } } }, {}],
    ['nullable array', { type: 'array', nullable: true, items: { type: 'string' } }, {}],
    ['junctors are dropped', { type: 'string', anyOf: [{ pattern: 'a' }], oneOf: [{ pattern: 'b' }], allOf: [{ minLength: 1 }], not: { pattern: 'c' } }, { type: 'string' }],
    ['int-or-string keeps only the marker', { 'x-kubernetes-int-or-string': true }, { 'x-kubernetes-int-or-string': true }],
    ['unknown fields: no properties, no type object', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } } }, { 'x-kubernetes-preserve-unknown-fields': true }],
    ['unknown fields in an array: no items, so no type', { type: 'array', 'x-kubernetes-preserve-unknown-fields': true, items: { type: 'string' } }, { 'x-kubernetes-preserve-unknown-fields': true }],
    ['value validations stay', { type: 'string', pattern: '^a', maxLength: 3, enum: ['a'] }, { type: 'string', maxLength: 3, pattern: '^a', enum: ['a'] }],
    ['an embedded resource keeping unknown fields gets no added properties', { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true }, { 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-embedded-resource': true }],
  ];
  for (const [name, field, want] of cases) {
    const s = customKindSchema({ ...KIND, schema: { type: 'object', properties: { f: field } } }, 2);
    assert.deepEqual(props(s).f, want, name);
  }
  // A nullable field is not required in v2; a map of nullable values requires nothing.
  const required = customKindSchema({ ...KIND, schema: { type: 'object', required: ['a', 'b'], properties: { a: { type: 'string', nullable: true }, b: { type: 'string' } } } }, 2);
  assert.deepEqual(required.required, ['b']);
  const onlyNullable = customKindSchema({ ...KIND, schema: { type: 'object', required: ['a'], properties: { a: { type: 'string', nullable: true } } } }, 2);
  assert.equal(onlyNullable.required, undefined);
  const map = customKindSchema({ ...KIND, schema: { type: 'object', properties: { m: { type: 'object', required: ['x'], additionalProperties: { type: 'string', nullable: true } } } } }, 2);
  assert.deepEqual(props(map).m, { type: 'object', additionalProperties: {} });
  // v3 keeps all of that.
  assert.deepEqual(props(customKindSchema({ ...KIND, schema: { type: 'object', required: ['a'], properties: { a: { type: 'string', nullable: true } } } }, 3)).a, { type: 'string', nullable: true });
  // A root that keeps unknown fields, or no schema at all: only the type.
  for (const schema of [{ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { spec: { type: 'object' } } } as JSONSchemaProps, undefined]) {
    assert.deepEqual(customKindSchema({ ...KIND, schema }, 2), { type: 'object', 'x-kubernetes-group-version-kind': [{ group: 'stable.example.com', kind: 'Widget', version: 'v1' }] });
  }
  // In v3 a root keeping unknown fields still has its properties and metadata.
  assert.ok(props(customKindSchema({ ...KIND, schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { spec: { type: 'object' } } } }, 3)).metadata);
  setFlavor('orch');
});

test('the list kind refers to the kind and to ListMeta', () => {
  setFlavor('kubernetes');
  const list = customListSchema({ ...KIND, schema: WIDGET_SCHEMA }, 2);
  assert.deepEqual(list, {
    description: 'WidgetList is a list of Widget',
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: props(list).apiVersion,
      items: {
        description: 'List of widgets. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md',
        type: 'array',
        items: { $ref: '#/definitions/com.example.stable.v1.Widget' },
      },
      kind: props(list).kind,
      metadata: {
        description: 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
        $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta',
      },
    },
    'x-kubernetes-group-version-kind': [{ group: 'stable.example.com', kind: 'WidgetList', version: 'v1' }],
  });
  setFlavor('orch');
});

test('the orch flavor spells the extensions x-orch-* and its meta types io.orch.*', () => {
  setFlavor('orch');
  const text = JSON.stringify(customKindSchema({ ...KIND, schema: WIDGET_SCHEMA }, 3));
  assert.equal(text.includes('x-kubernetes-'), false);
  assert.ok(text.includes('"x-orch-int-or-string":true'));
  assert.ok(text.includes('"x-orch-group-version-kind"'));
  assert.ok(text.includes('#/components/schemas/io.orch.apimachinery.pkg.apis.meta.v1.ObjectMeta'));
});

interface V3Doc {
  info: { title: string };
  paths: Record<string, Record<string, { operationId: string; description: string; tags: string[]; requestBody?: { content: Record<string, unknown>; required: boolean }; responses: Record<string, { content?: Record<string, { schema: Json }> }>; parameters: { name: string }[]; 'x-kubernetes-group-version-kind': unknown; 'x-kubernetes-action': string }>>;
  components: { schemas: Record<string, Json>; securitySchemes?: unknown };
}

test('v3: a document per custom group-version, with the operations of the CRD builder', () => {
  setFlavor('kubernetes');
  const resources = [widgets()];
  const doc = openapiV3Document(resources, 'apis/stable.example.com/v1');
  assert.ok(doc);
  const v3 = JSON.parse(doc.json.toString('utf8')) as V3Doc;
  assert.equal(v3.info.title, 'Kubernetes CRD Swagger');
  assert.deepEqual(Object.keys(v3.paths), [
    '/apis/stable.example.com/v1/namespaces/{namespace}/widgets',
    '/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}',
    '/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}/scale',
    '/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}/status',
    '/apis/stable.example.com/v1/widgets',
  ]);
  const ops = Object.values(v3.paths).flatMap((p) => Object.values(p).map((o) => o.operationId)).sort();
  assert.deepEqual(ops, [
    'createStableExampleComV1NamespacedWidget',
    'deleteStableExampleComV1CollectionNamespacedWidget',
    'deleteStableExampleComV1NamespacedWidget',
    'listStableExampleComV1NamespacedWidget',
    'listStableExampleComV1WidgetForAllNamespaces',
    'patchStableExampleComV1NamespacedWidget',
    'patchStableExampleComV1NamespacedWidgetScale',
    'patchStableExampleComV1NamespacedWidgetStatus',
    'readStableExampleComV1NamespacedWidget',
    'readStableExampleComV1NamespacedWidgetScale',
    'readStableExampleComV1NamespacedWidgetStatus',
    'replaceStableExampleComV1NamespacedWidget',
    'replaceStableExampleComV1NamespacedWidgetScale',
    'replaceStableExampleComV1NamespacedWidgetStatus',
  ]);
  const item = v3.paths['/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}'];
  assert.deepEqual(item.patch.tags, ['stableExampleCom_v1']);
  assert.equal(item.patch.description, 'partially update the specified Widget');
  assert.deepEqual(Object.keys(item.patch.requestBody!.content), ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
  assert.deepEqual(Object.keys(item.patch.responses), ['200', '401']);
  assert.deepEqual(item.patch.responses['200'].content!['application/json'].schema, { $ref: '#/components/schemas/com.example.stable.v1.Widget' });
  assert.deepEqual(Object.keys(item.get.responses['200'].content!), ['application/json', 'application/yaml'], 'no binary form for custom resources');
  assert.deepEqual(item.patch['x-kubernetes-group-version-kind'], { group: 'stable.example.com', kind: 'Widget', version: 'v1' });
  assert.ok(item.patch.parameters.some((p) => p.name === 'fieldValidation'), 'kubectl looks for fieldValidation on PATCH');
  assert.equal(item.delete.description, 'delete a Widget');
  assert.equal(item.delete.requestBody?.required, false);
  const collection = v3.paths['/apis/stable.example.com/v1/namespaces/{namespace}/widgets'];
  assert.equal(collection.delete.requestBody, undefined, 'deletecollection takes no body');
  assert.equal(collection.delete['x-kubernetes-action'], 'deletecollection');
  assert.deepEqual(collection.get.responses['200'].content!['application/json'].schema, { $ref: '#/components/schemas/com.example.stable.v1.WidgetList' });
  const scale = v3.paths['/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}/scale'];
  assert.deepEqual(scale.get.responses['200'].content!['application/json'].schema, { $ref: '#/components/schemas/io.k8s.api.autoscaling.v1.Scale' });
  // Every reference resolves inside the document.
  for (const r of new Set(doc.json.toString('utf8').match(/#\/components\/schemas\/[^"]+/g) ?? [])) {
    assert.ok(v3.components.schemas[r.slice('#/components/schemas/'.length)], r);
  }
  assert.ok(v3.components.schemas['com.example.stable.v1.Widget']);
  assert.ok(v3.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.Status']);
  assert.equal(v3.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList'], undefined, 'only what the operations refer to');
  setFlavor('orch');
});

test('v3: the index lists the custom group-version with a hash that follows the schema', async () => {
  setFlavor('kubernetes');
  const indexOf = (resources: OpenApiResource[]): Record<string, { serverRelativeURL: string }> =>
    (JSON.parse(openapiV3Index(resources).json.toString('utf8')) as { paths: Record<string, { serverRelativeURL: string }> }).paths;
  const first = indexOf([widgets()])['apis/stable.example.com/v1']?.serverRelativeURL;
  assert.match(first ?? '', /^\/openapi\/v3\/apis\/stable\.example\.com\/v1\?hash=[0-9A-F]{128}$/);
  const changed: JSONSchemaProps = { ...WIDGET_SCHEMA, description: 'Another widget.' };
  const second = indexOf([widgets(changed)])['apis/stable.example.com/v1']?.serverRelativeURL;
  assert.ok(second && second !== first, 'a new hash when the schema changes');
  assert.equal(indexOf([widgets(changed)])['apis/stable.example.com/v1']?.serverRelativeURL, second, 'the same for the same schema');
  assert.equal(indexOf([])['apis/stable.example.com/v1'], undefined, 'gone with the definition');
  const handler = openapiHandler(() => [widgets(changed)]);
  const answer = await handler('/openapi/v3/apis/stable.example.com/v1', new URLSearchParams(), 'application/json');
  assert.equal(answer?.code, 200);
  assert.match(String(answer?.body), /Another widget/);
  setFlavor('orch');
});

// ---- the protobuf form, read back with a tiny decoder ----

type Fields = Map<number, (bigint | Uint8Array)[]>;
function decode(b: Uint8Array): Fields {
  const out: Fields = new Map();
  let i = 0;
  const varint = (): bigint => {
    let r = 0n;
    let shift = 0n;
    for (;;) {
      const byte = b[i++]!;
      r |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return r;
      shift += 7n;
    }
  };
  while (i < b.length) {
    const key = Number(varint());
    let v: bigint | Uint8Array;
    if ((key & 7) === 0) v = varint();
    else if ((key & 7) === 1) {
      v = b.subarray(i, i + 8);
      i += 8;
    } else {
      const len = Number(varint());
      v = b.subarray(i, i + len);
      i += len;
    }
    out.set(key >> 3, [...(out.get(key >> 3) ?? []), v]);
  }
  return out;
}
const msg = (v: bigint | Uint8Array | undefined): Fields => decode(v instanceof Uint8Array ? v : new Uint8Array());
const text = (v: bigint | Uint8Array | undefined): string => (v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : '');
const first = (f: Fields, n: number): bigint | Uint8Array | undefined => f.get(n)?.[0];

test('v2: custom definitions and paths in JSON and protobuf, updated when the schema changes', async () => {
  setFlavor('kubernetes');
  const resources = [widgets()];
  const v2 = openapiV2(resources);
  const doc = JSON.parse(v2.json.toString('utf8')) as { definitions: Record<string, Json>; paths: Record<string, Record<string, Json>> };
  const widget = doc.definitions['com.example.stable.v1.Widget'];
  assert.ok(widget);
  assert.ok(doc.definitions['com.example.stable.v1.WidgetList']);
  assert.ok(doc.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
  assert.deepEqual(props(widget).metadata.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  assert.deepEqual(props(props(widget).spec).note, { pattern: '^[a-z]+$' }, 'v2 restrictions applied: nullable loses its type');
  const patch = doc.paths['/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}']!.patch!;
  assert.deepEqual(patch.consumes, ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
  assert.deepEqual(patch.produces, ['application/json', 'application/yaml']);
  for (const r of new Set(v2.json.toString('utf8').match(/#\/definitions\/[^"]+/g) ?? [])) assert.ok(doc.definitions[r.slice('#/definitions/'.length)], r);

  // The protobuf document carries the definition with its validations and extensions.
  const pb = decode(v2.protobuf);
  const defs = new Map((msg(first(pb, 9)).get(1) ?? []).map((d) => [text(first(msg(d), 1)), msg(first(msg(d), 2))]));
  const def = defs.get('com.example.stable.v1.Widget');
  assert.ok(def);
  const gvk = (def.get(31) ?? []).map((e) => [text(first(msg(e), 1)), JSON.parse(text(first(msg(first(msg(e), 2)), 2))) as unknown]);
  assert.deepEqual(gvk, [['x-kubernetes-group-version-kind', [{ group: 'stable.example.com', kind: 'Widget', version: 'v1' }]]]);
  const propsOf = (f: Fields): Map<string, Fields> => new Map((msg(first(f, 25)).get(1) ?? []).map((p) => [text(first(msg(p), 1)), msg(first(msg(p), 2))]));
  const size = propsOf(propsOf(def).get('spec')!).get('size')!;
  assert.equal(Buffer.from(first(size, 7) as Uint8Array).readDoubleLE(), 10, 'maximum');
  assert.equal(Buffer.from(first(size, 9) as Uint8Array).readDoubleLE(), 1, 'minimum');
  const note = propsOf(propsOf(def).get('spec')!).get('note')!;
  assert.equal(text(first(note, 13)), '^[a-z]+$', 'pattern');
  assert.equal(first(note, 22), undefined, 'no type');
  const tags = propsOf(propsOf(def).get('spec')!).get('tags')!;
  assert.equal(text(first(msg(first(tags, 22)), 1)), 'array');
  const x = msg(first(msg(first(msg(first(decode(encodeDocument({ definitions: { x: { title: 'T', maxLength: 3, minItems: 2, uniqueItems: true, exclusiveMinimum: true, multipleOf: 0.5 } } })), 9)), 1)), 2));
  assert.equal(text(first(x, 3)), 'T');
  assert.equal(first(x, 11), 3n);
  assert.equal(first(x, 15), 2n);
  assert.equal(first(x, 16), 1n);
  assert.equal(first(x, 10), 1n);
  assert.equal(Buffer.from(first(x, 6) as Uint8Array).readDoubleLE(), 0.5);

  const changed = openapiV2([widgets({ ...WIDGET_SCHEMA, description: 'Changed.' })]);
  assert.notEqual(changed.etag, v2.etag, 'a new ETag when the schema changes');
  const handler = openapiHandler(() => resources);
  const answer = await handler('/openapi/v2', new URLSearchParams(), 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf');
  assert.equal(answer?.headers?.ETag, v2.etag);
  setFlavor('orch');
});
