// The PVC and PV protection controllers over the real registry (memory storage, no admission:
// the controllers put the finalizers on themselves), with a FakeClock.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinResourceDefinitions } from '../../apis/definitions.js';
import { FakeClock } from '../../apimachinery/clock.js';
import { isApiError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { LoopbackClient } from '../../server/loopback.js';
import { memoryTable } from '../../testing/memory-table.js';
import { eventually } from '../../testing/wait.js';
import { testControllerContext, type TestControllerContext } from '../../testing/controllers.js';
import type { RunningController } from '../types.js';
import { podUsesClaim, pvcProtectionControllerDescriptor, pvProtectionControllerDescriptor } from './index.js';
import { PODS, PVCS } from './pvcprotection/controller.js';
import { PVS } from './pvprotection/controller.js';

const NS = { group: '', version: 'v1', resource: 'namespaces' };
const PVC_FINALIZER = 'orch.io/pvc-protection';
const PV_FINALIZER = 'orch.io/pv-protection';

describe('podUsesClaim', () => {
  const claim = (name: string, ownerUid?: string): KubeObject => ({
    metadata: { name, namespace: 'ns', ...(ownerUid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: ownerUid, controller: true }] } : {}) },
  });
  const pod = (spec: Record<string, unknown>, meta: Record<string, unknown> = {}): KubeObject => ({ metadata: { name: 'p', namespace: 'ns', uid: 'u1', ...meta }, spec });
  it('counts only scheduled pods naming the claim', () => {
    const volumes = [{ name: 'v', persistentVolumeClaim: { claimName: 'data' } }];
    assert.equal(podUsesClaim(pod({ nodeName: 'n', volumes }), claim('data')), true);
    assert.equal(podUsesClaim(pod({ volumes }), claim('data')), false);
    assert.equal(podUsesClaim(pod({ nodeName: 'n', volumes }), claim('other')), false);
  });
  it('counts a generic ephemeral claim only when the pod controls it and is not shut down', () => {
    const volumes = [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } }];
    assert.equal(podUsesClaim(pod({ nodeName: 'n', volumes }), claim('p-scratch', 'u1')), true);
    assert.equal(podUsesClaim(pod({ nodeName: 'n', volumes }), claim('p-scratch', 'someone-else')), false);
    assert.equal(podUsesClaim(pod({ nodeName: 'n', volumes }, { deletionTimestamp: '2024-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 }), claim('p-scratch', 'u1')), false);
    assert.equal(podUsesClaim(pod({ nodeName: 'n', volumes }, { deletionTimestamp: '2024-01-01T00:00:00Z', deletionGracePeriodSeconds: 30 }), claim('p-scratch', 'u1')), true);
  });
});

describe('pvc-protection and pv-protection controllers', () => {
  let client: LoopbackClient;
  let ctx: TestControllerContext;
  let running: RunningController[];
  let close: () => Promise<void>;

  before(async () => {
    const defs = builtinResourceDefinitions({ runtimeConfig: '' }).filter(
      (d) => d.group === '' && d.version === 'v1' && ['namespaces', 'pods', 'persistentvolumeclaims', 'persistentvolumes'].includes(d.resource),
    );
    const clock = new FakeClock(Date.UTC(2024, 0, 1));
    const mt = memoryTable(defs, { now: () => clock.now() });
    close = mt.close;
    client = new LoopbackClient(mt.table, { username: 'admin', groups: ['system:masters'] });
    ctx = testControllerContext(client, { clock });
    running = [await pvcProtectionControllerDescriptor.start(ctx), await pvProtectionControllerDescriptor.start(ctx)];
    ctx.informers.start();
    await ctx.informers.waitForSync();
    await client.create(NS, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
  });
  after(async () => {
    for (const r of running) await r.stop();
    await ctx.informers.stop();
    await close();
  });

  const settle = async (): Promise<void> => {
    let quiet = 0;
    await eventually(async () => {
      await new Promise((r) => setTimeout(r, 10));
      quiet = running.every((r) => r.idle?.() ?? true) ? quiet + 1 : 0;
      return quiet >= 3 ? true : undefined;
    }, 'the controllers to settle');
  };

  const gone = async (r: typeof PVCS, ns: string, name: string): Promise<boolean> => {
    try {
      await client.get(r, ns, name);
      return false;
    } catch (err) {
      if (isApiError(err) && err.code === 404) return true;
      throw err;
    }
  };

  async function claim(name: string, extra: Partial<NonNullable<KubeObject['metadata']>> = {}): Promise<KubeObject> {
    await client.create(PVCS, 'team', {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, ...extra },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    // Created without admission: the controller adds the finalizer kube-controller-manager adds to old claims.
    return eventually(async () => {
      const c = await client.get(PVCS, 'team', name);
      return c.metadata?.finalizers?.includes(PVC_FINALIZER) ? c : undefined;
    }, `the finalizer on ${name}`);
  }

  async function pod(name: string, spec: Record<string, unknown>, meta: Partial<NonNullable<KubeObject['metadata']>> = {}): Promise<KubeObject> {
    return client.create(PODS, 'team', { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...meta }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } });
  }

  it('lets an unused claim be deleted', async () => {
    await claim('unused');
    await client.delete(PVCS, 'team', 'unused');
    await eventually(() => gone(PVCS, 'team', 'unused'), 'the claim to go');
  });

  it('keeps a claim a scheduled pod uses until the pod is gone; an unscheduled pod does not hold it', async () => {
    await claim('data');
    await pod('runner', { nodeName: 'node-1', volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'data' } }] });
    await claim('pending-data');
    await pod('waiting', { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'pending-data' } }] });
    await client.delete(PVCS, 'team', 'data');
    await client.delete(PVCS, 'team', 'pending-data');
    await eventually(() => gone(PVCS, 'team', 'pending-data'), 'the claim of the unscheduled pod to go');
    await settle();
    const held = await client.get(PVCS, 'team', 'data');
    assert.ok(held.metadata?.deletionTimestamp);
    assert.deepEqual(held.metadata?.finalizers, [PVC_FINALIZER]);
    // A finished pod still holds it (only its removal frees it, as in Kubernetes 1.27).
    const running = await client.get(PODS, 'team', 'runner');
    await client.update(PODS, 'team', { ...running, status: { ...(running.status as object), phase: 'Succeeded' } }, 'status');
    await settle();
    assert.equal(await gone(PVCS, 'team', 'data'), false);
    await client.delete(PODS, 'team', 'runner', { gracePeriodSeconds: 0 });
    await eventually(() => gone(PVCS, 'team', 'data'), 'the claim to go with its pod');
  });

  it("frees a generic ephemeral volume's claim once its pod is shut down", async () => {
    const p = await pod('job', { nodeName: 'node-1', volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } }] }, { finalizers: ['example.com/hold'] });
    await claim('job-scratch', { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'job', uid: p.metadata?.uid ?? '', controller: true }] });
    await client.delete(PVCS, 'team', 'job-scratch');
    await settle();
    assert.equal(await gone(PVCS, 'team', 'job-scratch'), false);
    // Deleted with no grace period, the pod stays for its own finalizer but no longer uses the claim.
    await client.delete(PODS, 'team', 'job', { gracePeriodSeconds: 0 });
    await eventually(() => gone(PVCS, 'team', 'job-scratch'), 'the ephemeral claim to go');
    const shut = await client.get(PODS, 'team', 'job');
    await client.update(PODS, 'team', { ...shut, metadata: { ...shut.metadata, finalizers: [] } });
  });

  it('keeps a bound volume until it is released, and lets an unbound one go', async () => {
    for (const name of ['pv-free', 'pv-bound']) {
      await client.create(PVS, '', {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name },
        spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' } },
      });
      await eventually(async () => ((await client.get(PVS, '', name)).metadata?.finalizers?.includes(PV_FINALIZER) ? true : undefined), `the finalizer on ${name}`);
    }
    const bound = await client.get(PVS, '', 'pv-bound');
    await client.update(PVS, '', { ...bound, status: { phase: 'Bound' } }, 'status');
    await client.delete(PVS, '', 'pv-free');
    await client.delete(PVS, '', 'pv-bound');
    await eventually(() => gone(PVS, '', 'pv-free'), 'the unbound volume to go');
    await settle();
    assert.equal(await gone(PVS, '', 'pv-bound'), false);
    const held = await client.get(PVS, '', 'pv-bound');
    await client.update(PVS, '', { ...held, status: { phase: 'Released' } }, 'status');
    await eventually(() => gone(PVS, '', 'pv-bound'), 'the released volume to go');
  });
});
