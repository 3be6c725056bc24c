import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import type { JSONSchemaProps } from '../apimachinery/jsonschema.js';
import type { KubeObject } from '../apimachinery/types.js';
import { lookupType } from '../schema/index.js';
import { fieldManagerForKind } from './catalog.js';
import { CustomResourceApplySchema } from './custom-resource.js';
import type { ApplyType } from './schema.js';

const NOW = new Date('2026-01-02T03:04:05.678Z');

const SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name', 'protocol'],
          items: { type: 'object', properties: { name: { type: 'string' }, protocol: { type: 'string' }, port: { type: 'integer' } } },
        },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        args: { type: 'array', items: { type: 'string' } },
        selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        port: { 'x-kubernetes-int-or-string': true },
        config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        strict: { type: 'object', properties: { a: { type: 'string' } } },
        open: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { known: { type: 'object', properties: { x: { type: 'string' } } } },
        },
      },
    },
    status: { type: 'object', properties: { phase: { type: 'string' } } },
  },
};

const manager = (schema: JSONSchemaProps | undefined, subresource?: string) =>
  fieldManagerForKind({
    group: 'example.com',
    version: 'v1',
    kind: 'Widget',
    apiVersion: 'example.com/v1',
    resetFields: subresource === 'status' ? ['spec'] : ['status'],
    subresource,
    now: () => NOW,
    customResourceSchema: schema,
  });

function widget(spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec };
}

function fieldsOf(obj: KubeObject, name: string): unknown {
  return obj.metadata?.managedFields?.find((e) => e.manager === name)?.fieldsV1;
}

function conflictOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    return e;
  }
  assert.fail('expected an ApiError');
}

describe('CustomResourceApplySchema', () => {
  const schema = new CustomResourceApplySchema({ lookupType }, SCHEMA);
  const spec = schema.member(schema.rootType, 'spec');
  const cases: [string, (t: ApplyType) => boolean][] = [
    ['replicas', (t) => t.kind === 'scalar'],
    ['ports', (t) => t.kind === 'list' && t.listType === 'map' && t.keys.join() === 'name,protocol'],
    ['tags', (t) => t.kind === 'list' && t.listType === 'set'],
    ['args', (t) => t.kind === 'list' && t.listType === 'atomic'],
    ['selector', (t) => t.kind === 'map' && t.atomic && t.value.kind === 'scalar'],
    ['labels', (t) => t.kind === 'map' && !t.atomic],
    ['port', (t) => t.kind === 'untyped'],
    ['config', (t) => t.kind === 'map' && t.value.kind === 'untyped'],
    ['template', (t) => t.kind === 'struct' && schema.unknownField(t.typeId)?.kind === 'untyped' && schema.field(t.typeId, 'metadata')?.kind === 'struct'],
    ['strict', (t) => t.kind === 'struct' && schema.unknownField(t.typeId) === undefined],
  ];
  for (const [name, ok] of cases) {
    it(`reads spec.${name}`, () => assert.ok(ok(schema.member(spec, name)), JSON.stringify(schema.member(spec, name))));
  }
  it('an object with additionalProperties false admits no field', () => {
    const s = new CustomResourceApplySchema({ lookupType }, { type: 'object', properties: { closed: { type: 'object', additionalProperties: false } } });
    const closed = s.member(s.rootType, 'closed');
    assert.ok(closed.kind === 'struct' && s.unknownField(closed.typeId) === undefined && s.field(closed.typeId, 'x') === undefined);
  });
  it('objects below one that keeps unknown fields keep them too', () => {
    const open = schema.member(spec, 'open');
    const known = schema.member(open, 'known');
    assert.equal(known.kind, 'struct');
    assert.equal(known.kind === 'struct' && schema.unknownField(known.typeId)?.kind, 'untyped');
  });
  it('the root has the type fields and the catalog ObjectMeta', () => {
    const meta = schema.member(schema.rootType, 'metadata');
    assert.equal(meta.kind, 'struct');
    const finalizers = schema.member(meta, 'finalizers');
    assert.equal(finalizers.kind === 'list' && finalizers.listType, 'set');
    assert.equal(schema.member(schema.rootType, 'kind').kind, 'scalar');
  });
  it('a schema key named __proto__ is an ordinary field', () => {
    const s = new CustomResourceApplySchema({ lookupType }, { type: 'object', properties: JSON.parse('{"__proto__": {"type": "string"}}') as Record<string, JSONSchemaProps> });
    assert.equal(s.member(s.rootType, '__proto__').kind, 'scalar');
    assert.equal(s.member(s.rootType, 'toString').kind, 'untyped');
  });
});

describe('server-side apply of a custom resource with its schema', () => {
  it('merges a list-map by its keys between two managers', () => {
    const fm = manager(SCHEMA);
    const a = fm.apply(undefined, widget({ ports: [{ name: 'http', protocol: 'TCP', port: 80 }] }), 'a', false);
    const b = fm.apply(a, widget({ ports: [{ name: 'metrics', protocol: 'TCP', port: 9090 }] }), 'b', false);
    assert.deepEqual((b.spec as { ports: unknown[] }).ports, [
      { name: 'http', protocol: 'TCP', port: 80 },
      { name: 'metrics', protocol: 'TCP', port: 9090 },
    ]);
    assert.deepEqual(fieldsOf(b, 'b'), {
      'f:spec': { 'f:ports': { 'k:{"name":"metrics","protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {} } } },
    });
    // a gives its entry up: it goes, b's stays.
    const c = fm.apply(b, widget({}), 'a', false);
    assert.deepEqual((c.spec as { ports: unknown[] }).ports, [{ name: 'metrics', protocol: 'TCP', port: 9090 }]);
  });

  it('without the schema the same lists are atomic: the second apply conflicts', () => {
    const fm = manager(undefined);
    const a = fm.apply(undefined, widget({ ports: [{ name: 'http', protocol: 'TCP', port: 80 }] }), 'a', false);
    const err = conflictOf(() => fm.apply(a, widget({ ports: [{ name: 'metrics', protocol: 'TCP', port: 9090 }] }), 'b', false));
    assert.equal(err.code, 409);
    assert.equal(err.status.message, 'Apply failed with 1 conflict: conflict with "a": .spec.ports');
  });

  it('merges set lists by value', () => {
    const fm = manager(SCHEMA);
    const a = fm.apply(undefined, widget({ tags: ['x', 'y'] }), 'a', false);
    const b = fm.apply(a, widget({ tags: ['z'] }), 'b', false);
    assert.deepEqual((b.spec as { tags: unknown[] }).tags, ['x', 'y', 'z']);
    assert.deepEqual(fieldsOf(b, 'b'), { 'f:spec': { 'f:tags': { 'v:"z"': {} } } });
  });

  it('an atomic map is owned whole: another manager conflicts, and force takes it over', () => {
    const fm = manager(SCHEMA);
    const a = fm.apply(undefined, widget({ selector: { app: 'x' } }), 'a', false);
    assert.deepEqual(fieldsOf(a, 'a'), { 'f:spec': { 'f:selector': {} } });
    const err = conflictOf(() => fm.apply(a, widget({ selector: { tier: 'y' } }), 'b', false));
    assert.equal(err.code, 409);
    assert.equal(err.status.message, 'Apply failed with 1 conflict: conflict with "a": .spec.selector');
    assert.deepEqual(err.status.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.selector' }]);
    const forced = fm.apply(a, widget({ selector: { tier: 'y' } }), 'b', true);
    assert.deepEqual((forced.spec as { selector: unknown }).selector, { tier: 'y' });
    assert.equal(fieldsOf(forced, 'a'), undefined);
  });

  it('a granular map is merged key by key', () => {
    const fm = manager(SCHEMA);
    const a = fm.apply(undefined, widget({ labels: { x: '1' } }), 'a', false);
    const b = fm.apply(a, widget({ labels: { y: '2' } }), 'b', false);
    assert.deepEqual((b.spec as { labels: unknown }).labels, { x: '1', y: '2' });
  });

  it('conflicts over a scalar between two appliers name the field', () => {
    const fm = manager(SCHEMA);
    const a = fm.apply(undefined, widget({ replicas: 1 }), 'a', false);
    const err = conflictOf(() => fm.apply(a, widget({ replicas: 2 }), 'b', false));
    assert.equal(err.status.message, 'Apply failed with 1 conflict: conflict with "a": .spec.replicas');
  });

  it('a field the schema does not declare is refused, one under preserved fields is not', () => {
    const fm = manager(SCHEMA);
    const err = conflictOf(() => fm.apply(undefined, widget({ strict: { b: 'x' } }), 'a', false));
    assert.equal(err.code, 500);
    assert.equal(err.status.message, 'failed to create typed patch object (default/w; example.com/v1, Kind=Widget): .spec.strict.b: field not declared in schema');
    const ok = fm.apply(undefined, widget({ config: { deep: { x: [1] } }, open: { other: 1, known: { y: 2 } }, template: { apiVersion: 'v1', kind: 'Pod', spec: { a: 1 } } }), 'a', false);
    assert.deepEqual(fieldsOf(ok, 'a'), {
      'f:spec': {
        // Declared fields are owned through their leaves; undeclared ones (map keys) themselves too.
        'f:config': { 'f:deep': { '.': {}, 'f:x': {} } },
        'f:open': { 'f:known': { 'f:y': {} }, 'f:other': {} },
        'f:template': { 'f:apiVersion': {}, 'f:kind': {}, 'f:spec': { '.': {}, 'f:a': {} } },
      },
    });
  });

  it('a list-map entry without a key field is refused, unless the schema defaults it', () => {
    const err = conflictOf(() => manager(SCHEMA).apply(undefined, widget({ ports: [{ name: 'http' }] }), 'a', false));
    assert.equal(err.code, 500);
    assert.equal(
      err.status.message,
      'failed to create typed patch object (default/w; example.com/v1, Kind=Widget): .spec.ports: element 0: associative list with keys has an element that omits key field "protocol" (and doesn\'t have default value)',
    );
    const items: JSONSchemaProps = { type: 'object', properties: { name: { type: 'string' }, protocol: { type: 'string', default: 'UDP' } } };
    const defaulted: JSONSchemaProps = {
      type: 'object',
      properties: { spec: { type: 'object', properties: { ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'protocol'], items } } } },
    };
    const out = manager(defaulted).apply(undefined, widget({ ports: [{ name: 'http' }] }), 'a', false);
    assert.deepEqual(fieldsOf(out, 'a'), { 'f:spec': { 'f:ports': { 'k:{"name":"http","protocol":"UDP"}': { '.': {}, 'f:name': {} } } } });
  });

  it('status through the main resource is not owned; status through /status is', () => {
    const fm = manager(SCHEMA);
    const a = fm.apply(undefined, { ...widget({ replicas: 1 }), status: { phase: 'x' } }, 'a', false);
    assert.deepEqual(fieldsOf(a, 'a'), { 'f:spec': { 'f:replicas': {} } });
    const s = manager(SCHEMA, 'status').apply(a, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, status: { phase: 'y' } }, 'st', false);
    assert.deepEqual(fieldsOf(s, 'st'), { 'f:status': { 'f:phase': {} } });
  });

  it('the scale subresource applies a built-in Scale; a write through it records ownership in the custom resource', () => {
    const scale = fieldManagerForKind({ group: 'autoscaling', version: 'v1', kind: 'Scale', apiVersion: 'autoscaling/v1', subresource: 'scale', now: () => NOW, customResourceSchema: SCHEMA });
    const applied = scale.apply(undefined, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'w' }, spec: { replicas: 2 } }, 'a', false);
    assert.deepEqual(fieldsOf(applied, 'a'), { 'f:spec': { 'f:replicas': {} } });
    const err = conflictOf(() => scale.apply(undefined, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'w' }, spec: { ports: [] } }, 'a', false));
    assert.match(err.status.message ?? '', /\.spec\.ports: field not declared in schema/);
    const written = manager(SCHEMA, 'scale').update(widget({ ports: [{ name: 'a', protocol: 'TCP' }] }), widget({ ports: [{ name: 'a', protocol: 'TCP', port: 1 }] }), 'hpa');
    assert.deepEqual(fieldsOf(written, 'hpa'), { 'f:spec': { 'f:ports': { 'k:{"name":"a","protocol":"TCP"}': { 'f:port': {} } } } });
  });

  it('a non-apply update records list-map entries by key', () => {
    const fm = manager(SCHEMA);
    const next = fm.update({}, widget({ ports: [{ name: 'http', protocol: 'TCP', port: 80 }] }), 'kubectl-create');
    assert.deepEqual(fieldsOf(next, 'kubectl-create'), {
      'f:spec': { '.': {}, 'f:ports': { '.': {}, 'k:{"name":"http","protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {} } } },
    });
  });

  it('client keys named __proto__ are ordinary fields of a preserved object', () => {
    const config = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    const out = manager(SCHEMA).apply(undefined, widget({ config }), 'a', false);
    const got = (out.spec as { config: Record<string, unknown> }).config;
    assert.ok(Object.hasOwn(got, '__proto__'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(fieldsOf(out, 'a'), { 'f:spec': { 'f:config': { 'f:__proto__': { '.': {}, 'f:polluted': {} } } } });
  });
});
