import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { applyDefaults, pruneObject } from './index.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        a: { type: 'string' },
        list: { type: 'array', items: { type: 'object', properties: { x: { type: 'string' } } } },
        labels: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'string' } } } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { k: { type: 'string' } } } } },
        tmpl: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } },
      },
    },
  },
};

describe('pruneObject', () => {
  const cases: { name: string; obj: Record<string, unknown>; want: Record<string, unknown>; removed: string[] }[] = [
    { name: 'keeps declared fields', obj: { a: 'x' }, want: { a: 'x' }, removed: [] },
    { name: 'drops an unknown field', obj: { a: 'x', foo: 1 }, want: { a: 'x' }, removed: ['spec.foo'] },
    { name: 'inside list items', obj: { list: [{ x: 'a', y: 1 }] }, want: { list: [{ x: 'a' }] }, removed: ['spec.list[0].y'] },
    { name: 'through additionalProperties', obj: { labels: { k: { v: 'a', w: 'b' } } }, want: { labels: { k: { v: 'a' } } }, removed: ['spec.labels.k.w'] },
    {
      name: 'preserve-unknown-fields keeps unknowns but prunes declared fields',
      obj: { free: { anything: { deep: 1 }, known: { k: 'a', z: 1 } } },
      want: { free: { anything: { deep: 1 }, known: { k: 'a' } } },
      removed: ['spec.free.known.z'],
    },
    {
      name: 'embedded resources keep apiVersion, kind and metadata',
      obj: { tmpl: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {}, status: {} } },
      want: { tmpl: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} } },
      removed: ['spec.tmpl.status'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const obj: KubeObject = { apiVersion: 'example.com/v1', kind: 'W', metadata: { name: 'w' }, spec: c.obj, status: {} };
      const removed = pruneObject(obj, schema);
      assert.deepEqual(obj, { apiVersion: 'example.com/v1', kind: 'W', metadata: { name: 'w' }, spec: c.want });
      assert.deepEqual(removed, [...c.removed, 'status'].sort());
    });
  }

  it('drops nulls of non-nullable fields without defaults, silently', () => {
    const obj: KubeObject = { spec: { a: null } };
    assert.deepEqual(pruneObject(obj, schema), []);
    assert.deepEqual(obj, { spec: {} });
  });

  it('removes a __proto__ field as any other', () => {
    const obj = JSON.parse('{"spec": {"__proto__": {"polluted": true}, "a": "x"}}') as KubeObject;
    assert.deepEqual(pruneObject(obj, schema), ['spec.__proto__']);
    assert.deepEqual(Object.keys(obj.spec as object), ['a']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('applyDefaults', () => {
  const dschema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        default: {},
        properties: {
          replicas: { type: 'integer', default: 1 },
          opt: { type: 'string', nullable: true, default: 'd' },
          items: { type: 'array', items: { type: 'object', properties: { p: { type: 'integer', default: 80 } } } },
          m: { type: 'object', additionalProperties: { type: 'object', properties: { q: { type: 'string', default: 'q' } } } },
          obj: { type: 'object', default: { list: ['a'] }, properties: { list: { type: 'array', items: { type: 'string' } } } },
        },
      },
    },
  };
  const cases: { name: string; obj: KubeObject; want: Record<string, unknown> }[] = [
    { name: 'absent fields, recursively into a defaulted object', obj: {}, want: { replicas: 1, opt: 'd', obj: { list: ['a'] } } },
    { name: 'a null of a non-nullable field', obj: { spec: { replicas: null } }, want: { replicas: 1, opt: 'd', obj: { list: ['a'] } } },
    { name: 'a null of a nullable field stays', obj: { spec: { opt: null } }, want: { opt: null, replicas: 1, obj: { list: ['a'] } } },
    { name: 'into items', obj: { spec: { items: [{}, { p: 8 }] } }, want: { items: [{ p: 80 }, { p: 8 }], replicas: 1, opt: 'd', obj: { list: ['a'] } } },
    { name: 'into additionalProperties', obj: { spec: { m: { k: {} } } }, want: { m: { k: { q: 'q' } }, replicas: 1, opt: 'd', obj: { list: ['a'] } } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      applyDefaults(c.obj, dschema);
      assert.deepEqual(c.obj.spec, c.want);
    });
  }

  it('deep-copies defaults', () => {
    const a: KubeObject = {};
    const b: KubeObject = {};
    applyDefaults(a, dschema);
    applyDefaults(b, dschema);
    ((a.spec as Record<string, { list: string[] }>).obj.list).push('changed');
    assert.deepEqual((b.spec as Record<string, unknown>).obj, { list: ['a'] });
    assert.deepEqual(((dschema.properties?.spec.properties?.obj.default) as { list: string[] }).list, ['a']);
  });
});
