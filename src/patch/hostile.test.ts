// Patches built to hurt: keys that name Object.prototype's members, deep and huge documents,
// odd JSON patch paths. Each patch type must treat `__proto__`, `constructor` and
// `prototype` as the ordinary keys they are in JSON, leave the process's prototypes alone,
// and answer bad input with a Status error.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyJsonPatch } from './json-patch.js';
import { applyMergePatch } from './merge-patch.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';
import { applyPatchOfType } from './patch-types.js';
import { catalogPatchSchema } from './catalog-schema.js';
import { ApiError } from '../apimachinery/errors.js';
import { fieldManagerForKind } from '../apply/catalog.js';
import type { KubeObject } from '../apimachinery/types.js';

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'] as const;
const configMapSchema = catalogPatchSchema('io.k8s.api.core.v1.ConfigMap');
const podSchema = catalogPatchSchema('io.k8s.api.core.v1.Pod');

/** JSON text with a member literally named `key` (an object literal would set the prototype). */
function parse(text: string): unknown {
  return JSON.parse(text) as unknown;
}

function configMap(): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', labels: { app: 'x' } }, data: { a: '1' } };
}

type Doc = { metadata: { labels?: Record<string, unknown>; namespace?: unknown }; data?: Record<string, unknown> };

function assertPristine(): void {
  const probe = {} as Record<string, unknown>;
  assert.equal(probe.namespace, undefined);
  assert.equal(probe.x, undefined);
  assert.equal(Object.getPrototypeOf({}), Object.prototype);
  assert.equal(typeof Object.prototype.toString, 'function');
}

function ownKeys(value: unknown): string[] {
  return Object.keys(value as object);
}

let protoSnapshot: string[] = [];
before(() => {
  protoSnapshot = Object.getOwnPropertyNames(Object.prototype).sort();
});
after(() => {
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), protoSnapshot);
  assertPristine();
});

describe('merge patch with prototype keys', () => {
  it("the issue's patch sets a member named __proto__ and nothing else", () => {
    const out = applyMergePatch(configMap(), parse('{"__proto__":{"namespace":"kube-system"}}')) as Record<string, unknown>;
    assertPristine();
    assert.ok(Object.hasOwn(out, '__proto__'));
    assert.deepEqual(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, { namespace: 'kube-system' });
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.equal((out.metadata as Doc['metadata']).namespace, 'default');
  });

  it('nested prototype paths land as members and do not walk into prototypes', () => {
    for (const key of PROTO_KEYS) {
      const out = applyMergePatch(configMap(), parse(`{"metadata":{"${key}":{"namespace":"kube-system"}},"${key}":{"prototype":{"x":1}}}`));
      assertPristine();
      const meta = (out as Doc).metadata as Record<string, unknown>;
      assert.deepEqual(Object.getOwnPropertyDescriptor(meta, key)?.value, { namespace: 'kube-system' }, key);
      assert.equal(meta.namespace, 'default');
    }
  });

  it('a label or data key named after a prototype member is added, read back and removed', () => {
    for (const key of PROTO_KEYS) {
      const added = applyMergePatch(configMap(), parse(`{"metadata":{"labels":{"${key}":"v"}},"data":{"${key}":"d"}}`)) as Doc;
      assertPristine();
      assert.deepEqual(ownKeys(added.metadata.labels).sort(), [key, 'app'].sort());
      assert.equal(Object.getOwnPropertyDescriptor(added.metadata.labels, key)?.value, 'v');
      assert.equal(Object.getOwnPropertyDescriptor(added.data, key)?.value, 'd');
      const changed = applyMergePatch(added, parse(`{"data":{"${key}":"e"}}`)) as Doc;
      assert.equal(Object.getOwnPropertyDescriptor(changed.data, key)?.value, 'e');
      const removed = applyMergePatch(changed, parse(`{"metadata":{"labels":{"${key}":null}},"data":{"${key}":null}}`)) as Doc;
      assert.deepEqual(ownKeys(removed.metadata.labels), ['app']);
      assert.deepEqual(ownKeys(removed.data), ['a']);
    }
  });

  it('a null for an absent prototype key removes nothing and reads nothing inherited', () => {
    for (const key of PROTO_KEYS) {
      const out = applyMergePatch(configMap(), parse(`{"data":{"${key}":null},"metadata":{"labels":{"${key}":{"a":null}}}}`)) as Doc;
      assertPristine();
      assert.deepEqual(ownKeys(out.data), ['a']);
      assert.deepEqual(Object.getOwnPropertyDescriptor(out.metadata.labels, key)?.value, {});
    }
  });
});

describe('strategic merge patch with prototype keys', () => {
  it("the issue's patch sets a member named __proto__", () => {
    // Kubernetes refuses a field the type does not declare only when it must merge into it.
    const out = applyStrategicMergePatch(configMap(), parse('{"__proto__":{"namespace":"kube-system"}}'), configMapSchema) as Record<string, unknown>;
    assertPristine();
    assert.ok(Object.hasOwn(out, '__proto__'));
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
  });

  it('labels and data keys named after prototype members are added, changed and removed', () => {
    for (const key of PROTO_KEYS) {
      const added = applyStrategicMergePatch(configMap(), parse(`{"metadata":{"labels":{"${key}":"v"}},"data":{"${key}":"d"}}`), configMapSchema) as Doc;
      assertPristine();
      assert.equal(Object.getOwnPropertyDescriptor(added.metadata.labels, key)?.value, 'v');
      assert.equal(Object.getOwnPropertyDescriptor(added.data, key)?.value, 'd');
      const changed = applyStrategicMergePatch(added, parse(`{"data":{"${key}":"e"}}`), configMapSchema) as Doc;
      assert.equal(Object.getOwnPropertyDescriptor(changed.data, key)?.value, 'e');
      const removed = applyStrategicMergePatch(changed, parse(`{"metadata":{"labels":{"${key}":null}},"data":{"${key}":null}}`), configMapSchema) as Doc;
      assert.deepEqual(ownKeys(removed.metadata.labels), ['app']);
      assert.deepEqual(ownKeys(removed.data), ['a']);
    }
  });

  it('directives naming prototype keys are data too', () => {
    for (const key of PROTO_KEYS) {
      const cases = [
        `{"$setElementOrder/${key}":[{"name":"a"}]}`,
        `{"$deleteFromPrimitiveList/${key}":["x"]}`,
        `{"$retainKeys":["${key}"],"${key}":"v"}`,
        `{"metadata":{"$patch":"replace","${key}":{"a":1}}}`,
        `{"spec":{"containers":[{"name":"c","${key}":{"x":1}},{"$patch":"delete","name":"${key}"}]}}`,
      ];
      for (const text of cases) {
        const pod = { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } };
        try {
          applyStrategicMergePatch(pod, parse(text), podSchema);
        } catch (e) {
          assert.ok(e instanceof ApiError, `${text}: ${String(e)}`);
        }
        assertPristine();
      }
    }
    // A list the type does not declare is looked up as Kubernetes does, and not found.
    assert.throws(
      () => applyStrategicMergePatch({ metadata: { name: 'p' } }, parse('{"$setElementOrder/__proto__":[1],"__proto__":[1]}'), podSchema),
      (e: unknown) => e instanceof ApiError && e.code === 500 && /for the json field "__proto__"/.test(e.message),
    );
    assertPristine();
  });
});

describe('JSON patch with prototype paths', () => {
  it('adds, tests and removes members named after prototype members', () => {
    for (const key of PROTO_KEYS) {
      const added = applyJsonPatch(configMap(), [
        { op: 'add', path: `/metadata/labels/${key}`, value: 'v' },
        { op: 'add', path: `/data/${key}`, value: 'd' },
        { op: 'add', path: `/${key}`, value: { namespace: 'kube-system' } },
      ]) as Doc;
      assertPristine();
      assert.equal(Object.getOwnPropertyDescriptor(added.metadata.labels, key)?.value, 'v');
      assert.equal(Object.getPrototypeOf(added), Object.prototype);
      const replaced = applyJsonPatch(added, [
        { op: 'test', path: `/data/${key}`, value: 'd' },
        { op: 'replace', path: `/data/${key}`, value: 'e' },
        { op: 'copy', from: `/data/${key}`, path: `/metadata/labels/${key}` },
      ]) as Doc;
      assert.equal(Object.getOwnPropertyDescriptor(replaced.metadata.labels, key)?.value, 'e');
      const removed = applyJsonPatch(replaced, [
        { op: 'remove', path: `/metadata/labels/${key}` },
        { op: 'move', from: `/data/${key}`, path: '/data/moved' },
      ]) as Doc;
      assert.deepEqual(ownKeys(removed.metadata.labels), ['app']);
      assert.deepEqual(ownKeys(removed.data).sort(), ['a', 'moved']);
    }
    assertPristine();
  });

  it('paths through inherited members are missing paths (422), never walks into prototypes', () => {
    const paths = [
      '/__proto__/namespace',
      '/constructor/prototype/namespace',
      '/metadata/__proto__/x',
      '/metadata/constructor/prototype/x',
      '/data/toString/x',
      '/data/hasOwnProperty',
    ];
    for (const path of paths) {
      for (const op of ['add', 'replace', 'remove', 'test']) {
        try {
          applyJsonPatch(configMap(), [{ op, path, value: 'kube-system' }]);
          assert.ok(op === 'add' || op === 'replace' || op === 'test', `${op} ${path} succeeded`);
        } catch (e) {
          assert.ok(e instanceof ApiError, `${op} ${path}: ${String(e)}`);
          assert.ok(e.code === 422, `${op} ${path}: ${e.code}`);
        }
        assertPristine();
      }
    }
    // An inherited member is not there to test, copy or move.
    for (const op of [{ op: 'test', path: '/data/constructor', value: 'x' }, { op: 'move', from: '/data/toString', path: '/data/x' }]) {
      assert.throws(() => applyJsonPatch(configMap(), [op]), (e: unknown) => e instanceof ApiError && e.code === 422);
    }
  });

  it('odd but legal paths: empty keys, escapes, array ends, huge indices', () => {
    const out = applyJsonPatch({ a: [1] }, [
      { op: 'add', path: '/', value: 1 },
      { op: 'add', path: '/~0~1', value: 2 },
      { op: 'add', path: '/a/-', value: 3 },
    ]) as Record<string, unknown>;
    assert.deepEqual(out, { '': 1, '~/': 2, a: [1, 3] });
    for (const path of ['/a/99999999999999999999', '/a/1e3', '/a/-5', '/a/01x', 'no-slash']) {
      assert.throws(() => applyJsonPatch({ a: [1] }, [{ op: 'replace', path, value: 1 }]), (e: unknown) => e instanceof ApiError && e.code === 422, path);
    }
  });
});

describe('server-side apply with prototype keys', () => {
  const fm = () => fieldManagerForKind({ group: '', version: 'v1', kind: 'ConfigMap', apiVersion: 'v1', now: () => new Date(0) });

  it('applies, owns and removes data and labels named after prototype members', () => {
    for (const key of PROTO_KEYS) {
      const config = parse(
        `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default","labels":{"${key}":"v"}},"data":{"${key}":"d","b":"2"}}`,
      ) as KubeObject;
      const live = fm().apply(undefined, config, 'm', false);
      assertPristine();
      const data = live.data as Record<string, unknown>;
      assert.equal(Object.getOwnPropertyDescriptor(data, key)?.value, 'd');
      const fields = JSON.stringify(live.metadata?.managedFields?.[0]?.fieldsV1);
      assert.ok(fields.includes(`"f:${key}"`), fields);
      // Applying again without the key removes it: the manager owned it.
      const smaller = parse(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default"},"data":{"b":"2"}}`) as KubeObject;
      const next = fm().apply(live, smaller, 'm', false);
      assert.deepEqual(ownKeys(next.data), ['b']);
      assert.deepEqual(ownKeys(next.metadata?.labels ?? {}), []);
      assertPristine();
    }
  });

  it('managed fields naming f:__proto__ and an update that touches it do not reach prototypes', () => {
    const live = parse(
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default","managedFields":[{"manager":"m","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:__proto__":{"f:namespace":{}},"f:data":{"f:constructor":{}}}}]},"data":{"constructor":"x"}}',
    ) as KubeObject;
    // A top-level member the type does not declare is refused, as Kubernetes refuses it.
    const stray = parse('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default"},"__proto__":{"namespace":"kube-system"}}') as KubeObject;
    assert.throws(() => fm().apply(live, stray, 'm', false), (e: unknown) => e instanceof ApiError && /\.__proto__: field not declared in schema/.test(e.message));
    assertPristine();
    const config = parse('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default"}}') as KubeObject;
    const out = fm().apply(live, config, 'm', false);
    assertPristine();
    assert.deepEqual(ownKeys(out.data ?? {}), []);
    const updated = fm().update(out, parse('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"__proto__":"y"}}') as KubeObject, 'u');
    assert.equal(Object.getOwnPropertyDescriptor(updated.data, '__proto__')?.value, 'y');
    assertPristine();
  });
});

describe('deep and huge patches', () => {
  it('deep patches of every type are applied or refused with a Status, never a stack overflow', () => {
    let text = '"x"';
    for (let i = 0; i < 100; i++) text = `{"a":${text}}`;
    const out = applyMergePatch({}, parse(text));
    let depth = 0;
    for (let cur = out as Record<string, unknown>; typeof cur === 'object'; cur = cur.a as Record<string, unknown>) depth++;
    assert.equal(depth, 100);
    // Far deeper than any decoder lets through, as repeated patches could build.
    let deep: unknown = 'x';
    for (let i = 0; i < 200000; i++) deep = { a: deep };
    for (const type of ['application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/json-patch+json']) {
      const patch = type === 'application/json-patch+json' ? [{ op: 'add', path: '/a', value: deep }] : { data: deep };
      try {
        applyPatchOfType(type, configMap(), patch, configMapSchema);
      } catch (e) {
        assert.ok(e instanceof ApiError, `${type}: ${String(e)}`);
        assert.ok(e.code === 422 || e.code === 500, `${type}: ${e.code}`);
      }
    }
  });

  it('huge patches of every type finish quickly', () => {
    const data: Record<string, string> = {};
    for (let i = 0; i < 50000; i++) data[`k${i}`] = 'v';
    const started = process.hrtime.bigint();
    applyMergePatch(configMap(), { data });
    applyStrategicMergePatch(configMap(), { data }, configMapSchema);
    applyJsonPatch(configMap(), Object.keys(data).slice(0, 10000).map((k) => ({ op: 'add', path: `/data/${k}`, value: 'v' })));
    const containers = Array.from({ length: 2000 }, (_, i) => ({ name: `c${i}`, image: 'i' }));
    applyStrategicMergePatch({ spec: { containers: containers.slice(0, 1000) } }, { spec: { containers } }, podSchema);
    // Generous: the point is that nothing is quadratic in the patch size.
    assert.ok(Number(process.hrtime.bigint() - started) / 1e6 < 5000);
  });

  it('more JSON patch operations than allowed is a 413', () => {
    const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/a', value: 1 }));
    assert.throws(() => applyJsonPatch({ a: 1 }, ops), (e: unknown) => e instanceof ApiError && e.code === 413);
  });
});
