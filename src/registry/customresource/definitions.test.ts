import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../apimachinery/types.js';
import { extension } from '../../naming/index.js';
import { customResourceDefinitions } from './definitions.js';

function crd(versions: Record<string, unknown>[], extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apiextensions/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com', uid: 'uid-1' },
    spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' }, versions },
    status: {
      acceptedNames: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wg'], categories: ['all'] },
      conditions: [{ type: 'Established', status: 'True' }],
    },
    ...extra,
  };
}

const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', [extension('preserve-unknown-fields')]: true } } } };

test('one definition per served version, by version priority, the first preferred', () => {
  const defs = customResourceDefinitions(
    crd([
      { name: 'v1alpha1', served: true, storage: false, schema },
      { name: 'v1', served: true, storage: true, schema },
      { name: 'v2beta1', served: true, storage: false, schema },
      { name: 'v3', served: false, storage: false, schema },
    ]),
  );
  assert.deepEqual(
    defs.map((d) => [d.version, d.preferred]),
    [
      ['v1', true],
      ['v2beta1', false],
      ['v1alpha1', false],
    ],
  );
  for (const d of defs) {
    assert.deepEqual(d.storage, { group: 'example.com', resource: 'widgets', version: 'v1' });
    assert.deepEqual([d.group, d.resource, d.kind, d.singularName, d.namespaced], ['example.com', 'widgets', 'Widget', 'widget', true]);
    assert.deepEqual(d.shortNames, ['wg']);
    assert.deepEqual(d.categories, ['all']);
    assert.deepEqual(d.verbs, ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    assert.equal(d.customResource?.crdName, 'widgets.example.com');
    assert.equal(d.customResource?.crdUID, 'uid-1');
    assert.equal(d.strategy?.tracksGeneration, true);
    assert.equal(d.strategy?.allowCreateOnUpdate, false);
  }
  assert.equal(defs[0]?.conversion?.fromStorage({ apiVersion: 'example.com/v1', kind: 'Widget' }).apiVersion, 'example.com/v1');
  assert.equal(defs[1]?.conversion?.fromStorage({ apiVersion: 'example.com/v1', kind: 'Widget' }).apiVersion, 'example.com/v2beta1');
  assert.equal(defs[1]?.conversion?.toStorage({ apiVersion: 'example.com/v2beta1', kind: 'Widget' }).apiVersion, 'example.com/v1');
});

test('the schema is canonical: extension keys spelled x-kubernetes-* whatever the flavor', () => {
  const [def] = customResourceDefinitions(crd([{ name: 'v1', served: true, storage: true, schema }]));
  assert.equal(def?.customResource?.schema?.properties?.spec?.['x-kubernetes-preserve-unknown-fields'], true);
});

test('subresources as declared per version; Scale in autoscaling/v1', () => {
  const defs = customResourceDefinitions(
    crd([
      { name: 'v1', served: true, storage: true, schema, subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } } },
      { name: 'v1beta1', served: true, storage: false, schema },
    ]),
  );
  assert.deepEqual(defs[0]?.subresources, [
    { name: 'status', kind: 'Widget', verbs: ['get', 'patch', 'update'], serving: { by: 'status' } },
    { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'], serving: { by: 'scale' } },
  ]);
  assert.equal(defs[0]?.strategy?.hasStatus, true);
  assert.ok(defs[0]?.strategy?.scale);
  assert.deepEqual(defs[1]?.subresources, []);
  assert.equal(defs[1]?.strategy?.hasStatus, false);
  assert.equal(defs[1]?.strategy?.scale, undefined);
});

test('deprecation warnings: the version own text, else Kubernetes default naming the best served version', () => {
  const cases: [Record<string, unknown>[], string, string | undefined][] = [
    [[{ name: 'v1', served: true, storage: true }, { name: 'v1beta1', served: true, storage: false, deprecated: true }], 'v1beta1', 'example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget'],
    [
      [
        { name: 'v1', served: true, storage: true },
        { name: 'v2', served: true, storage: false },
        { name: 'v1beta1', served: true, storage: false, deprecated: true },
      ],
      'v1beta1',
      'example.com/v1beta1 Widget is deprecated; use example.com/v2 Widget',
    ],
    // Only newer, served, not deprecated versions are offered.
    [[{ name: 'v1', served: true, storage: true, deprecated: true }, { name: 'v1beta1', served: true, storage: false }], 'v1', 'example.com/v1 Widget is deprecated'],
    [[{ name: 'v1', served: false, storage: true }, { name: 'v1beta1', served: true, storage: false, deprecated: true }], 'v1beta1', 'example.com/v1beta1 Widget is deprecated'],
    [[{ name: 'v1', served: true, storage: true, deprecated: true, deprecationWarning: 'gone soon' }], 'v1', 'gone soon'],
    [[{ name: 'v1', served: true, storage: true }], 'v1', undefined],
  ];
  for (const [versions, version, want] of cases) {
    const def = customResourceDefinitions(crd(versions)).find((d) => d.version === version);
    assert.equal(def?.customResource?.deprecationWarning, want, JSON.stringify(versions));
  }
});

test('cluster scope, and spec.names while no names are accepted', () => {
  const obj = crd([{ name: 'v1', served: true, storage: true }]);
  (obj.spec as Record<string, unknown>).scope = 'Cluster';
  obj.status = {};
  const [def] = customResourceDefinitions(obj);
  assert.deepEqual([def?.namespaced, def?.resource, def?.kind, def?.singularName], [false, 'widgets', 'Widget', 'widget']);
});

test('printer columns per version, Age by default', () => {
  const defs = customResourceDefinitions(
    crd([
      { name: 'v1', served: true, storage: true, additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size', priority: 1 }] },
      { name: 'v1beta1', served: true, storage: false },
    ]),
  );
  assert.deepEqual(defs[0]?.strategy?.table.columns.map((c) => [c.name, c.priority]), [
    ['Name', 0],
    ['Size', 1],
  ]);
  assert.deepEqual(defs[1]?.strategy?.table.columns.map((c) => c.name), ['Name', 'Age']);
});
