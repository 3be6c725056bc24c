// The pod garbage collector over the real registry (memory storage) with a FakeClock: its
// period and the orphans' quarantine run on the clock, never on real time.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinResourceDefinitions } from '../../apis/definitions.js';
import { FakeClock } from '../../apimachinery/clock.js';
import { isApiError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { SharedInformerFactory } from '../../client/informer-factory.js';
import { LoopbackClient } from '../../server/loopback.js';
import { memoryTable } from '../../testing/memory-table.js';
import { eventually } from '../../testing/wait.js';
import { GC_CHECK_PERIOD_MS, PodGCController, QUARANTINE_MS, type PodGCOptions } from './index.js';
import { NODES, PODS } from './controller.js';

const NS = { group: '', version: 'v1', resource: 'namespaces' };

interface Harness {
  client: LoopbackClient;
  clock: FakeClock;
  errors: unknown[];
  informers: SharedInformerFactory;
  /** Moves the clock and waits for the pass it starts to end. */
  step(ms: number): Promise<void>;
  /** Waits until the informers hold every pod and node the store has. */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

async function start(opts: Partial<Pick<PodGCOptions, 'terminatedPodThreshold' | 'podDisruptionConditions'>> = {}): Promise<Harness> {
  const defs = builtinResourceDefinitions({ runtimeConfig: '' }).filter((d) => d.group === '' && d.version === 'v1' && ['namespaces', 'pods', 'nodes'].includes(d.resource));
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const mt = memoryTable(defs, { now: () => clock.now() });
  const client = new LoopbackClient(mt.table, { username: 'admin', groups: ['system:masters'] });
  await client.create(NS, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
  const informers = new SharedInformerFactory(client);
  const errors: unknown[] = [];
  const pods = informers.informerFor(PODS);
  const nodes = informers.informerFor(NODES);
  const controller = new PodGCController({
    client,
    pods,
    nodes,
    clock,
    terminatedPodThreshold: opts.terminatedPodThreshold ?? 12_500,
    podDisruptionConditions: opts.podDisruptionConditions ?? true,
    onError: (err) => errors.push(err),
  });
  informers.start();
  await informers.waitForSync();
  const settle = (): Promise<boolean> => eventually(async () => (controller.idle() ? true : undefined), 'the pass to end');
  const caughtUp = async (): Promise<void> => {
    for (const [r, informer] of [[PODS, pods], [NODES, nodes]] as const) {
      const want = (await client.list(r, '')).items.map((o) => `${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name ?? ''}:${o.metadata?.resourceVersion ?? ''}`).sort();
      await eventually(async () => {
        const have = informer.list().map((o) => `${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name ?? ''}:${o.metadata?.resourceVersion ?? ''}`).sort();
        return JSON.stringify(have) === JSON.stringify(want) ? true : undefined;
      }, 'the informers to catch up');
    }
  };
  // The first pass runs as soon as the informers have synced (nothing to collect yet).
  controller.start();
  await settle();
  const h: Harness = {
    client,
    clock,
    errors,
    informers,
    caughtUp,
    async step(ms) {
      await caughtUp();
      clock.step(ms);
      await settle();
    },
    async close() {
      await controller.stop();
      await informers.stop();
      await mt.close();
    },
  };
  open.push(h);
  return h;
}

async function pod(h: Harness, name: string, spec: Record<string, unknown> = {}, phase = 'Running', finalizers?: string[]): Promise<KubeObject> {
  const created = await h.client.create(PODS, 'team', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(finalizers ? { finalizers } : {}) },
    spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
  });
  if (phase === 'Pending') return created;
  return h.client.update(PODS, 'team', { ...created, status: { ...(created.status as object), phase } }, 'status');
}

async function node(h: Harness, name: string, spec: Record<string, unknown> = {}, ready = true): Promise<void> {
  const created = await h.client.create(NODES, '', { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec });
  await h.client.update(NODES, '', { ...created, status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } }, 'status');
}

async function exists(h: Harness, name: string): Promise<KubeObject | undefined> {
  try {
    return await h.client.get(PODS, 'team', name);
  } catch (err) {
    if (isApiError(err) && err.code === 404) return undefined;
    throw err;
  }
}

interface PodStatusView {
  phase?: string;
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
}

async function release(h: Harness, name: string): Promise<void> {
  const p = await h.client.get(PODS, 'team', name);
  await h.client.update(PODS, 'team', { ...p, metadata: { ...p.metadata, finalizers: [] } });
}

describe('podgc', () => {
  it('deletes pods bound to a node that stayed missing for the quarantine, marking them Failed with DisruptionTarget', async () => {
    const h = await start();
    await node(h, 'node-1');
    await pod(h, 'home', { nodeName: 'node-1' });
    await pod(h, 'orphan', { nodeName: 'gone-node' }, 'Running', ['example.com/keep']);
    await pod(h, 'late', { nodeName: 'late-node' });
    await h.step(GC_CHECK_PERIOD_MS); // quarantines gone-node and late-node
    await node(h, 'late-node'); // shows up within its quarantine
    await h.step(GC_CHECK_PERIOD_MS);
    const waiting = await exists(h, 'orphan');
    assert.ok(waiting && !waiting.metadata?.deletionTimestamp, 'still in quarantine');
    await h.step(QUARANTINE_MS - GC_CHECK_PERIOD_MS);
    const orphan = await exists(h, 'orphan');
    assert.ok(orphan?.metadata?.deletionTimestamp, 'deleted');
    assert.equal(orphan?.metadata?.deletionGracePeriodSeconds, 0);
    const status = orphan?.status as PodStatusView;
    assert.equal(status.phase, 'Failed');
    const target = status.conditions?.find((c) => c.type === 'DisruptionTarget');
    assert.deepEqual({ ...target, lastTransitionTime: undefined, lastProbeTime: undefined }, {
      type: 'DisruptionTarget',
      status: 'True',
      reason: 'DeletionByPodGC',
      message: 'PodGC: node no longer exists',
      lastTransitionTime: undefined,
      lastProbeTime: undefined,
    });
    assert.ok(await exists(h, 'home'));
    assert.ok(await exists(h, 'late'));
    await release(h, 'orphan');
    assert.deepEqual(h.errors, []);
  });

  it('without PodDisruptionConditions deletes orphans as they are', async () => {
    const h = await start({ podDisruptionConditions: false });
    await pod(h, 'orphan', { nodeName: 'gone-node' }, 'Running', ['example.com/keep']);
    // Seen on the first pass, deleted on the pass its quarantine has ended by.
    for (let t = 0; t <= QUARANTINE_MS; t += GC_CHECK_PERIOD_MS) await h.step(GC_CHECK_PERIOD_MS);
    const orphan = await exists(h, 'orphan');
    assert.ok(orphan?.metadata?.deletionTimestamp);
    assert.equal((orphan?.status as PodStatusView).phase, 'Running');
    assert.equal((orphan?.status as PodStatusView).conditions?.some((c) => c.type === 'DisruptionTarget') ?? false, false);
    await release(h, 'orphan');
  });

  it('keeps at most --terminated-pod-gc-threshold terminated pods, deleting the oldest', async () => {
    const h = await start({ terminatedPodThreshold: 2 });
    await node(h, 'node-1');
    for (const [name, phase] of [['t1', 'Succeeded'], ['t2', 'Failed'], ['r1', 'Running'], ['t3', 'Succeeded'], ['t4', 'Failed']] as const) {
      await pod(h, name, { nodeName: 'node-1' }, phase);
      h.clock.step(1000); // creation times one second apart (no pass is due yet)
    }
    await h.step(GC_CHECK_PERIOD_MS);
    await h.caughtUp();
    const left = (await h.client.list(PODS, 'team')).items.map((p) => p.metadata?.name).sort();
    assert.deepEqual(left, ['r1', 't3', 't4']);
  });

  it('finishes terminating pods that were never scheduled, and those on an out-of-service node', async () => {
    const h = await start();
    await pod(h, 'unscheduled', {}, 'Pending', ['example.com/keep']);
    await h.client.delete(PODS, 'team', 'unscheduled');
    await node(h, 'broken', { taints: [{ key: 'node.orch.io/out-of-service', effect: 'NoExecute' }] }, false);
    await node(h, 'tainted-but-ready', { taints: [{ key: 'node.orch.io/out-of-service', effect: 'NoExecute' }] }, true);
    await pod(h, 'stuck', { nodeName: 'broken' });
    await pod(h, 'fine', { nodeName: 'tainted-but-ready' });
    await h.client.delete(PODS, 'team', 'stuck');
    await h.client.delete(PODS, 'team', 'fine');
    assert.equal((await exists(h, 'stuck'))?.metadata?.deletionGracePeriodSeconds, 30);
    await h.step(GC_CHECK_PERIOD_MS);
    assert.equal(await exists(h, 'stuck'), undefined);
    assert.equal((await exists(h, 'fine'))?.metadata?.deletionGracePeriodSeconds, 30);
    const unscheduled = await exists(h, 'unscheduled');
    assert.equal((unscheduled?.status as PodStatusView).phase, 'Failed');
    await release(h, 'unscheduled');
  });
});
