import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../apimachinery/types.js';
import { group } from '../naming/index.js';
import { MemoryStorage } from '../storage/index.js';
import { builtinResourceDefinitions } from '../apis/definitions.js';
import type { GenericStore } from './store.js';
import { buildResourceTable, type DefaultResourceTable } from './table.js';
import { TEST_GROUP, requestContext, widgetDefinition, widgetStrategy } from '../testing/registry.js';
import type { ResourceDefinition } from '../rest/index.js';

/** A built-in kind without a generation (a ConfigMap-like kind in the core group). */
function configMapDefinition(): ResourceDefinition {
  const base = widgetDefinition(widgetStrategy({ hasStatus: false, scale: undefined, tracksGeneration: false }));
  return { ...base, group: '', resource: 'configmaps', kind: 'ConfigMap', singularName: 'configmap', storage: { group: '', resource: 'configmaps', version: 'v1' } };
}

/** A kind whose strategy raises the generation itself when annotations change, as Deployments do. */
function annotatedWidgets(): ResourceDefinition {
  return widgetDefinition(
    widgetStrategy({
      prepareForUpdate(obj, old) {
        const now = JSON.stringify(obj.metadata?.annotations ?? {});
        const before = JSON.stringify(old.metadata?.annotations ?? {});
        if (now !== before) (obj.metadata ??= {}).generation = (old.metadata?.generation ?? 0) + 1;
      },
    }),
  );
}

/** Whether the built-in kind stored as `resource` in `groupName` keeps a generation. */
function tracksGeneration(groupName: string, resource: string): boolean {
  const found = builtinResourceDefinitions({ runtimeConfig: 'api/all=true' }).find((d) => d.storage?.group === groupName && d.storage.resource === resource);
  assert.ok(found?.strategy, `${groupName}/${resource} is a stored built-in`);
  return found.strategy.tracksGeneration === true;
}

test('the kinds that keep a generation say so, as the Kubernetes 1.27 strategies do', () => {
  assert.equal(tracksGeneration('', 'configmaps'), false);
  assert.equal(tracksGeneration('', 'pods'), false);
  assert.equal(tracksGeneration('', 'namespaces'), false);
  assert.equal(tracksGeneration('', 'replicationcontrollers'), true);
  assert.equal(tracksGeneration('apps', 'deployments'), true);
  assert.equal(tracksGeneration('batch', 'cronjobs'), true);
  assert.equal(tracksGeneration(group('networking'), 'ingresses'), true);
  assert.equal(tracksGeneration(group('admissionregistration'), 'validatingadmissionpolicies'), true);
  assert.equal(tracksGeneration(group('rbac.authorization'), 'roles'), false);
  // The test kinds stand for custom resources: they keep a generation.
  assert.equal(widgetDefinition().strategy?.tracksGeneration, true);
});

describe('generation in the Store', () => {
  let storage: MemoryStorage;
  let table: DefaultResourceTable;
  let configMaps: GenericStore;
  let widgets: GenericStore;
  const ctx = requestContext();

  before(() => {
    storage = new MemoryStorage();
    table = buildResourceTable([configMapDefinition(), annotatedWidgets()], storage, { waitTimeoutMs: 200 });
    configMaps = table.lookup({ group: '', version: 'v1' }, 'configmaps') as GenericStore;
    widgets = table.lookup({ group: TEST_GROUP, version: 'v1' }, 'widgets') as GenericStore;
  });

  after(async () => {
    await table.stop();
    await storage.close();
  });

  test('a kind without a generation gets none on create and none on update', async () => {
    const created = await configMaps.create(ctx, 'ns', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, spec: { size: 1 } }, { dryRun: false });
    assert.equal(created.metadata?.generation, undefined);
    const updated = await configMaps.update(ctx, 'ns', 'c', (cur) => ({ ...(cur as KubeObject), spec: { size: 5 }, metadata: { ...cur?.metadata, generation: 7 } }), { dryRun: false });
    assert.equal(updated.object.metadata?.generation, undefined, 'a request cannot set the generation');
  });

  test('a spec change raises the generation by one; a request cannot set it', async () => {
    const created = await widgets.create(ctx, 'ns', { apiVersion: `${TEST_GROUP}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } }, { dryRun: false });
    assert.equal(created.metadata?.generation, 1);
    const resized = await widgets.update(ctx, 'ns', 'w', (cur) => ({ ...(cur as KubeObject), spec: { size: 3 }, metadata: { ...cur?.metadata, generation: 9 } }), { dryRun: false });
    assert.equal(resized.object.metadata?.generation, 2);
    const labelled = await widgets.update(ctx, 'ns', 'w', (cur) => ({ ...(cur as KubeObject), metadata: { ...cur?.metadata, labels: { a: 'b' } } }), { dryRun: false });
    assert.equal(labelled.object.metadata?.generation, 2);
  });

  test("the strategy's own raise is kept (annotations of a Deployment)", async () => {
    const annotated = await widgets.update(ctx, 'ns', 'w', (cur) => ({ ...(cur as KubeObject), metadata: { ...cur?.metadata, annotations: { x: 'y' } } }), { dryRun: false });
    assert.equal(annotated.object.metadata?.generation, 3);
  });
});
