// The disruption controller over the real registry (memory storage), with a FakeClock.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinResourceDefinitions } from '../../apis/definitions.js';
import { FakeClock } from '../../apimachinery/clock.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { LoopbackClient } from '../../server/loopback.js';
import { memoryTable } from '../../testing/memory-table.js';
import { settleControllers, testControllerContext, type TestControllerContext } from '../../testing/controllers.js';
import { discoverFromTable } from '../discovery.js';
import type { RunningController } from '../types.js';
import { disruptionControllerDescriptor, scaledValue, DELETION_TIMEOUT_MS } from './index.js';
import { PDBS, PODS } from './controller.js';

const DEPLOYMENTS = { group: 'apps', version: 'v1', resource: 'deployments' };
const REPLICASETS = { group: 'apps', version: 'v1', resource: 'replicasets' };
const STATEFULSETS = { group: 'apps', version: 'v1', resource: 'statefulsets' };

describe('scaledValue', () => {
  const cases: [unknown, number, number][] = [
    [3, 10, 3],
    ['50%', 5, 3],
    ['0%', 7, 0],
    ['100%', 7, 7],
    ['10%', 1, 1],
  ];
  for (const [v, total, want] of cases) it(`${String(v)} of ${total} is ${want}`, () => assert.equal(scaledValue(v, total), want));
  it('refuses a non-percentage string', () => assert.throws(() => scaledValue('half', 4)));
});

describe('disruption controller', () => {
  let client: LoopbackClient;
  let clock: FakeClock;
  let ctx: TestControllerContext;
  let running: RunningController;
  let close: () => Promise<void>;

  before(async () => {
    const defs = builtinResourceDefinitions({ runtimeConfig: '' }).filter(
      (d) =>
        (d.group === '' && d.version === 'v1' && ['namespaces', 'pods', 'replicationcontrollers'].includes(d.resource)) ||
        (d.group === 'apps' && d.version === 'v1') ||
        (d.group === 'policy' && d.version === 'v1'),
    );
    clock = new FakeClock(Date.UTC(2024, 0, 1));
    const mt = memoryTable(defs, { now: () => clock.now() });
    close = mt.close;
    client = new LoopbackClient(mt.table, { username: 'admin', groups: ['system:masters'] });
    ctx = testControllerContext(client, { clock, discover: async () => discoverFromTable(mt.table) });
    running = await disruptionControllerDescriptor.start(ctx);
    ctx.informers.start();
    await ctx.informers.waitForSync();
    await client.create({ group: '', version: 'v1', resource: 'namespaces' }, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  });
  after(async () => {
    await running.stop();
    await ctx.informers.stop();
    await close();
  });

  /** Until the controller has handled every write so far (and what the clock brought due). */
  const settle = async (): Promise<void> => {
    const watched = [PODS, PDBS, { group: '', version: 'v1', resource: 'replicationcontrollers' }, REPLICASETS, DEPLOYMENTS, STATEFULSETS];
    await settleControllers(client, watched.map((r) => ctx.informers.informerFor(r)), () => running.idle?.() ?? true);
  };

  async function pod(name: string, labels: Record<string, string>, ready: boolean, owner?: KubeObject): Promise<KubeObject> {
    const ownerReferences = owner
      ? [{ apiVersion: owner.apiVersion ?? '', kind: owner.kind ?? '', name: owner.metadata?.name ?? '', uid: owner.metadata?.uid ?? '', controller: true }]
      : undefined;
    const created = await client.create(PODS, 'default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels, ...(ownerReferences ? { ownerReferences } : {}) },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    created.status = { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] };
    return client.update(PODS, 'default', created, 'status');
  }

  async function budget(name: string, spec: Record<string, unknown>): Promise<void> {
    await client.create(PDBS, 'default', { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec });
  }

  const statusOf = async (name: string): Promise<Record<string, unknown>> => ((await client.get(PDBS, 'default', name)).status ?? {}) as Record<string, unknown>;
  const condition = (status: Record<string, unknown>): Record<string, unknown> | undefined =>
    (status.conditions as Record<string, unknown>[] | undefined)?.find((c) => c.type === 'DisruptionAllowed');

  it('minAvailable as a count: healthy pods minus the minimum may be disrupted', async () => {
    await pod('a-1', { app: 'a' }, true);
    await pod('a-2', { app: 'a' }, true);
    await pod('a-3', { app: 'a' }, false);
    await budget('a', { minAvailable: 1, selector: { matchLabels: { app: 'a' } } });
    await settle();
    const s = await statusOf('a');
    assert.deepEqual(
      { currentHealthy: s.currentHealthy, desiredHealthy: s.desiredHealthy, expectedPods: s.expectedPods, disruptionsAllowed: s.disruptionsAllowed, observedGeneration: s.observedGeneration },
      { currentHealthy: 2, desiredHealthy: 1, expectedPods: 3, disruptionsAllowed: 1, observedGeneration: 1 },
    );
    assert.equal(condition(s)?.status, 'True');
    assert.equal(condition(s)?.reason, 'SufficientPods');
    // A pod turning unready closes the budget.
    const p = await client.get(PODS, 'default', 'a-1');
    p.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] };
    await client.update(PODS, 'default', p, 'status');
    await settle();
    const after = await statusOf('a');
    assert.equal(after.disruptionsAllowed, 0);
    assert.equal(condition(after)?.reason, 'InsufficientPods');
  });

  it('maxUnavailable as a percentage of a Deployment owning the pods through its ReplicaSet', async () => {
    const d = await client.create(DEPLOYMENTS, 'default', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 4, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    const rs = await client.create(REPLICASETS, 'default', {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web-1', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: d.metadata?.uid ?? '', controller: true }] },
      spec: { replicas: 4, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    for (let i = 0; i < 4; i++) await pod(`web-${i}`, { app: 'web' }, i < 3, rs);
    await budget('web', { maxUnavailable: '50%', selector: { matchLabels: { app: 'web' } } });
    await settle();
    const s = await statusOf('web');
    assert.deepEqual([s.expectedPods, s.desiredHealthy, s.currentHealthy, s.disruptionsAllowed], [4, 2, 3, 1]);
  });

  it('minAvailable as a percentage of a StatefulSet', async () => {
    const ss = await client.create(STATEFULSETS, 'default', {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db' },
      spec: { replicas: 3, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'pg' }] } } },
    });
    for (let i = 0; i < 3; i++) await pod(`db-${i}`, { app: 'db' }, true, ss);
    await budget('db', { minAvailable: '50%', selector: { matchLabels: { app: 'db' } } });
    await settle();
    const s = await statusOf('db');
    assert.deepEqual([s.expectedPods, s.desiredHealthy, s.currentHealthy, s.disruptionsAllowed], [3, 2, 3, 1]);
  });

  it('unmanaged pods under a percentage: nothing expected, an UnmanagedPods warning', async () => {
    await pod('loose-1', { app: 'loose' }, true);
    await budget('loose', { minAvailable: '50%', selector: { matchLabels: { app: 'loose' } } });
    await settle();
    const s = await statusOf('loose');
    assert.deepEqual([s.expectedPods, s.disruptionsAllowed], [0, 0]);
    assert.ok(ctx.events.events.some((e) => e.reason === 'UnmanagedPods' && e.regarding.metadata?.name === 'loose'));
  });

  it('a pod of a controller that cannot be found fails safe: SyncFailed, nothing allowed', async () => {
    const ghost = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'ghost', uid: 'no-such-uid' } };
    await pod('ghost-1', { app: 'ghost' }, true, ghost);
    await budget('ghost', { maxUnavailable: 1, selector: { matchLabels: { app: 'ghost' } } });
    await settle();
    const s = await statusOf('ghost');
    assert.equal(s.disruptionsAllowed, 0);
    assert.equal(condition(s)?.status, 'False');
    assert.equal(condition(s)?.reason, 'SyncFailed');
    assert.equal(condition(s)?.message, 'found no controllers for pod "ghost-1"');
    assert.ok(ctx.events.events.some((e) => e.reason === 'CalculateExpectedPodCountFailed'));
  });

  it('an evicted pod is not counted for two minutes, then forgotten with a NotDeleted warning', async () => {
    await pod('ev-1', { app: 'ev' }, true);
    await pod('ev-2', { app: 'ev' }, true);
    await budget('ev', { minAvailable: 1, selector: { matchLabels: { app: 'ev' } } });
    await settle();
    const pdb = await client.get(PDBS, 'default', 'ev');
    const st = pdb.status as Record<string, unknown>;
    pdb.status = { ...st, disruptionsAllowed: 0, disruptedPods: { 'ev-1': clock.now().toISOString().replace(/\.\d+Z$/, 'Z') } };
    await client.update(PDBS, 'default', pdb, 'status');
    await settle();
    let s = await statusOf('ev');
    assert.deepEqual([s.currentHealthy, s.disruptionsAllowed], [1, 0]);
    assert.deepEqual(Object.keys(s.disruptedPods as object), ['ev-1']);
    clock.step(DELETION_TIMEOUT_MS + 1000);
    await settle();
    s = await statusOf('ev');
    assert.deepEqual([s.currentHealthy, s.disruptionsAllowed, s.disruptedPods], [2, 1, undefined]);
    assert.ok(ctx.events.events.some((e) => e.reason === 'NotDeleted' && e.regarding.metadata?.name === 'ev-1'));
  });

  it('turns a DisruptionTarget condition of a pod that was not deleted back to False after two minutes', async () => {
    const p = await pod('stale', { app: 'stale' }, true);
    p.status = { phase: 'Running', conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', lastTransitionTime: clock.now().toISOString().replace(/\.\d+Z$/, 'Z') }] };
    await client.update(PODS, 'default', p, 'status');
    await settle();
    const cond = async (): Promise<unknown> =>
      ((await client.get(PODS, 'default', 'stale')).status as { conditions: Record<string, unknown>[] }).conditions.find((c) => c.type === 'DisruptionTarget')?.status;
    assert.equal(await cond(), 'True');
    clock.step(2 * 60_000 + 1000);
    await settle();
    assert.equal(await cond(), 'False');
  });
});
