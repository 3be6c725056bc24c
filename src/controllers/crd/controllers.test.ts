import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isApiError } from '../../apimachinery/errors.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { crdResource, findCondition, type CRDCondition } from '../../apis/apiextensions/index.js';
import { definitionOf } from '../../testing/apis.js';
import { LoopbackClient } from '../../server/loopback.js';
import { coreDefinitions, memoryTable } from '../../testing/memory-table.js';
import { eventually } from '../../testing/wait.js';
import { startControllers } from '../index.js';
import { calculateNamesAndConditions, deletionVersion, startCRDControllers } from './index.js';

const admin = { username: 'admin', groups: ['system:masters'] };

interface Names {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
}

function crd(names: Names, accepted?: Names, conditions: CRDCondition[] = []): KubeObject {
  return {
    metadata: { name: `${names.plural}.example.com` },
    spec: { group: 'example.com', names, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] },
    status: { acceptedNames: accepted ?? { plural: '', kind: '' }, conditions },
  };
}

const widgets: Names = { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['w'] };

describe('names of definitions', () => {
  // Each row: the requested names, the ones it already holds, what the group's others hold;
  // then the accepted names and the NamesAccepted condition Kubernetes computes.
  const rows: [string, Names, Names | undefined, Names[], Names, Omit<CRDCondition, 'type'>][] = [
    ['no other definition', widgets, undefined, [], widgets, { status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }],
    ['a plural another holds as singular', { plural: 'widget', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' }, undefined, [widgets],
      { plural: '', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' }, { status: 'False', reason: 'PluralConflict', message: '"widget" is already in use' }],
    ['a singular another holds as short name', { plural: 'gizmos', singular: 'w', kind: 'Gizmo', listKind: 'GizmoList' }, undefined, [widgets],
      { plural: 'gizmos', kind: 'Gizmo', listKind: 'GizmoList' }, { status: 'False', reason: 'SingularConflict', message: '"w" is already in use' }],
    ['short names another holds', { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList', shortNames: ['g', 'w', 'widgets'] }, undefined, [widgets],
      { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' }, { status: 'False', reason: 'ShortNamesConflict', message: '["w" is already in use, "widgets" is already in use]' }],
    ['the kind and list kind another holds (the last conflict is reported)', { plural: 'gizmos', singular: 'gizmo', kind: 'Widget', listKind: 'WidgetList' }, undefined, [widgets],
      { plural: 'gizmos', singular: 'gizmo', kind: '' }, { status: 'False', reason: 'ListKindConflict', message: '"WidgetList" is already in use' }],
    ['the list kind another holds as kind', { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'Widget' }, undefined, [widgets],
      { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' }, { status: 'False', reason: 'ListKindConflict', message: '"Widget" is already in use' }],
    ['names it already holds, even if another claims them too', widgets, widgets, [widgets], widgets, { status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }],
    ['a renamed kind another holds keeps the old kind', { ...widgets, kind: 'Gizmo' }, widgets, [{ plural: 'gizmos', kind: 'Gizmo' }],
      widgets, { status: 'False', reason: 'KindConflict', message: '"Gizmo" is already in use' }],
  ];
  for (const [name, requested, accepted, others, names, condition] of rows) {
    it(name, () => {
      const self = crd(requested, accepted);
      const r = calculateNamesAndConditions(self, [self, ...others.map((o) => crd(o, o))]);
      assert.deepEqual(r.acceptedNames, names);
      assert.deepEqual(r.namesAccepted, { type: 'NamesAccepted', ...condition });
      assert.deepEqual(
        r.established,
        condition.status === 'True'
          ? { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' }
          : { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' },
      );
    });
  }

  it('an established definition stays established whatever its names', () => {
    const established: CRDCondition = { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted', lastTransitionTime: 't' };
    const self = crd({ ...widgets, kind: 'Gizmo' }, widgets, [established]);
    const r = calculateNamesAndConditions(self, [self, crd({ plural: 'gizmos', kind: 'Gizmo' }, { plural: 'gizmos', kind: 'Gizmo' })]);
    assert.deepEqual(r.established, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
  });
});

async function gone(client: LoopbackClient, r: GroupVersionResource, ns: string, name: string): Promise<boolean> {
  try {
    await client.get(r, ns, name);
    return false;
  } catch (e) {
    if (isApiError(e) && e.code === 404) return true;
    throw e;
  }
}

function condition(o: KubeObject, type: string): CRDCondition | undefined {
  return findCondition(o, type);
}

function definition(plural: string, kind: string, extra: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural, kind, ...extra },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
    },
  };
}

describe('the version instances are deleted through', () => {
  const rows: [string, { name: string; served: boolean; storage: boolean }[], string][] = [
    ['the storage version when served', [{ name: 'v1', served: true, storage: false }, { name: 'v2', served: true, storage: true }], 'v2'],
    ['a served version when the storage version is not', [{ name: 'v1', served: false, storage: true }, { name: 'v2', served: true, storage: false }], 'v2'],
    ['the storage version when none is served', [{ name: 'v1', served: false, storage: true }], 'v1'],
  ];
  for (const [name, versions, expected] of rows) {
    it(name, () => assert.equal(deletionVersion({ spec: { versions } }), expected));
  }
});

describe('definition controllers', () => {
  const CRDS = crdResource();

  it('accept names, establish, refuse a conflict until the holder goes', async () => {
    const { table, close } = memoryTable([definitionOf(CRDS.group, CRDS.resource)]);
    const client = new LoopbackClient(table, admin);
    const errors: unknown[] = [];
    const running = startCRDControllers({ client, onError: (_c, e) => errors.push(e) });
    try {
      await client.create(CRDS, '', definition('widgets', 'Widget', { shortNames: ['w'] }));
      const a = await eventually(async () => {
        const o = await client.get(CRDS, '', 'widgets.example.com');
        return condition(o, 'Established')?.status === 'True' ? o : undefined;
      }, 'widgets to be established');
      assert.deepEqual((a.status as { acceptedNames: unknown }).acceptedNames, { plural: 'widgets', singular: 'widget', shortNames: ['w'], kind: 'Widget', listKind: 'WidgetList' });
      const names = condition(a, 'NamesAccepted')!;
      assert.deepEqual({ ...names, lastTransitionTime: undefined }, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found', lastTransitionTime: undefined });
      assert.match(names.lastTransitionTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.deepEqual({ ...condition(a, 'Established'), lastTransitionTime: undefined }, {
        type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted', lastTransitionTime: undefined,
      });
      assert.deepEqual(((a.status as { conditions: CRDCondition[] }).conditions).map((c) => c.type), ['NamesAccepted', 'Established']);

      await client.create(CRDS, '', definition('gizmos', 'Gizmo', { shortNames: ['w'] }));
      const b = await eventually(async () => {
        const o = await client.get(CRDS, '', 'gizmos.example.com');
        return condition(o, 'NamesAccepted')?.status === 'False' ? o : undefined;
      }, 'gizmos to be refused');
      assert.equal(condition(b, 'NamesAccepted')?.reason, 'ShortNamesConflict');
      assert.equal(condition(b, 'NamesAccepted')?.message, '"w" is already in use');
      assert.equal(condition(b, 'Established')?.reason, 'NotAccepted');
      assert.deepEqual((b.status as { acceptedNames: unknown }).acceptedNames, { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' });

      // The holder goes (it never served instances): the other gets the name and is established.
      await client.delete(CRDS, '', 'widgets.example.com');
      await eventually(() => gone(client, CRDS, '', 'widgets.example.com'), 'widgets to go');
      const later = await eventually(async () => {
        const o = await client.get(CRDS, '', 'gizmos.example.com');
        return condition(o, 'Established')?.status === 'True' ? o : undefined;
      }, 'gizmos to be established');
      assert.deepEqual((later.status as { acceptedNames: { shortNames: string[] } }).acceptedNames.shortNames, ['w']);
      assert.equal(condition(later, 'NamesAccepted')?.reason, 'NoConflicts');
      assert.deepEqual(errors, []);
    } finally {
      await running.stop();
      await close();
    }
  });

  it('delete every instance, wait for their finalizers, then let the definition go', async () => {
    const [namespaces, configmaps] = coreDefinitions('namespaces', 'configmaps');
    const WIDGETS = { group: 'example.com', version: 'v1', resource: 'widgets' };
    // The custom resource, served as the registrar would once the definition is established.
    const widgetStore = {
      ...configmaps!,
      ...WIDGETS,
      kind: 'Widget',
      singularName: 'widget',
      shortNames: [],
      categories: [],
      storage: { group: WIDGETS.group, resource: WIDGETS.resource, version: WIDGETS.version },
    };
    const { table, close } = memoryTable([namespaces!, definitionOf(CRDS.group, CRDS.resource), widgetStore]);
    const client = new LoopbackClient(table, admin);
    const errors: unknown[] = [];
    const running = startControllers({ client, table, onError: (_c, e) => errors.push(e) });
    try {
      await client.create(CRDS, '', definition('widgets', 'Widget'));
      await eventually(async () => condition(await client.get(CRDS, '', 'widgets.example.com'), 'Established')?.status === 'True', 'established');
      await client.create(WIDGETS, 'a', { metadata: { name: 'one' } });
      await client.create(WIDGETS, 'b', { metadata: { name: 'two' } });
      await client.create(WIDGETS, 'b', { metadata: { name: 'held', finalizers: ['example.com/hold'] } });

      const deleting = await client.delete(CRDS, '', 'widgets.example.com');
      assert.ok(deleting?.metadata?.deletionTimestamp);
      const terminating = await eventually(async () => {
        const o = await client.get(CRDS, '', 'widgets.example.com');
        return condition(o, 'Terminating')?.status === 'True' && (await gone(client, WIDGETS, 'b', 'two')) ? o : undefined;
      }, 'the instances to be deleted');
      assert.deepEqual({ ...condition(terminating, 'Terminating'), lastTransitionTime: undefined }, {
        type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress', lastTransitionTime: undefined,
      });
      assert.ok(await gone(client, WIDGETS, 'a', 'one'));
      assert.ok((await client.get(WIDGETS, 'b', 'held')).metadata?.deletionTimestamp);
      // Held by the instance's finalizer: once the controllers are idle, the pass that deleted
      // the instances has counted the one left and kept the definition's finalizer.
      await eventually(() => running.idle(), 'the finalizer controller\'s pass to end');
      assert.deepEqual((await client.get(CRDS, '', 'widgets.example.com')).metadata?.finalizers, ['customresourcecleanup.apiextensions.orch.io']);

      await client.patch(WIDGETS, 'b', 'held', { metadata: { finalizers: null } });
      await eventually(() => gone(client, CRDS, '', 'widgets.example.com'), 'the definition to go', 5000);
      assert.deepEqual(errors, []);
    } finally {
      await running.stop();
      await close();
    }
  });

  it('a definition without instances goes within a second', async () => {
    const { table, close } = memoryTable([...coreDefinitions('namespaces'), definitionOf(CRDS.group, CRDS.resource)]);
    const client = new LoopbackClient(table, admin);
    const running = startControllers({ client, table });
    try {
      await client.create(CRDS, '', definition('widgets', 'Widget'));
      await eventually(async () => condition(await client.get(CRDS, '', 'widgets.example.com'), 'Established')?.status === 'True', 'established');
      const start = Date.now();
      await client.delete(CRDS, '', 'widgets.example.com');
      await eventually(() => gone(client, CRDS, '', 'widgets.example.com'), 'the definition to go', 1000);
      assert.ok(Date.now() - start < 1000);
    } finally {
      await running.stop();
      await close();
    }
  });
});
