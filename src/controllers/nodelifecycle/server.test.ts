// The node lifecycle controller over the real registry (memory storage): a node that stops
// heartbeating has its pods marked not ready and, once tainted unreachable, evicted; the pods
// of other nodes are left alone (a node's pods come from the pods informer's node index).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../apimachinery/types.js';
import { podCondition } from '../../apis/core/helpers/pod.js';
import { startControllerHarness, type ControllerHarness } from '../../testing/controller-harness.js';
import { eventually } from '../../testing/wait.js';
import { nodeLifecycleControllerDescriptor } from './controller.js';

const NODES = { group: '', version: 'v1', resource: 'nodes' };
const PODS = { group: '', version: 'v1', resource: 'pods' };

describe('node lifecycle controller', () => {
  let h: ControllerHarness;
  before(async () => {
    h = await startControllerHarness(
      nodeLifecycleControllerDescriptor,
      (d) => (d.group === '' && d.version === 'v1' && ['namespaces', 'pods', 'nodes'].includes(d.resource)) || (d.resource === 'leases' && d.version === 'v1'),
      { nodeMonitorGracePeriodMs: 40_000, nodeMonitorPeriodMs: 5_000 },
    );
  });
  after(() => h.stop());

  async function node(name: string): Promise<void> {
    const at = h.clock.now().toISOString().replace(/\.\d+Z$/, 'Z');
    const created = await h.client.create(NODES, '', { apiVersion: 'v1', kind: 'Node', metadata: { name } });
    await h.client.update(NODES, '', { ...created, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: at, lastTransitionTime: at }] } }, 'status');
  }

  async function readyPod(name: string, nodeName: string): Promise<void> {
    const created = await h.client.create(PODS, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName, containers: [{ name: 'c', image: 'nginx' }] } });
    const at = h.clock.now().toISOString().replace(/\.\d+Z$/, 'Z');
    await h.client.update(PODS, 'default', { ...created, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: at }] } }, 'status');
  }

  const ready = async (name: string): Promise<string | undefined> => podCondition(await h.client.get(PODS, 'default', name), 'Ready')?.status;

  it('marks the pods of a silent node not ready, then evicts them; the pods of a live node stay', async () => {
    await node('silent');
    await node('live');
    await readyPod('on-silent', 'silent');
    await readyPod('on-live', 'live');
    await h.settle();
    // The live node keeps heartbeating; the silent one does not, past the grace period.
    for (let t = 0; t < 50_000; t += 5_000) {
      h.clock.step(5_000);
      const live = await h.client.get(NODES, '', 'live');
      const at = h.clock.now().toISOString().replace(/\.\d+Z$/, 'Z');
      await h.client.update(NODES, '', { ...live, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: at, lastTransitionTime: at }] } } as KubeObject, 'status');
      await h.settle();
    }
    // Evicted: deleted gracefully (no kubelet here finishes it), not ready, a disruption target.
    await eventually(async () => (await h.client.get(PODS, 'default', 'on-silent')).metadata?.deletionTimestamp !== undefined, 'the pod of the silent node evicted');
    const evicted = await h.client.get(PODS, 'default', 'on-silent');
    assert.equal(podCondition(evicted, 'Ready')?.status, 'False');
    assert.equal(podCondition(evicted, 'DisruptionTarget')?.reason, 'DeletionByTaintManager');
    const live = await h.client.get(PODS, 'default', 'on-live');
    assert.equal(live.metadata?.deletionTimestamp, undefined);
    assert.equal(await ready('on-live'), 'True');
    const silent = await h.client.get(NODES, '', 'silent');
    assert.equal(podCondition(silent, 'Ready')?.status, 'Unknown');
    assert.ok(((silent.spec as { taints?: { key: string; effect: string }[] }).taints ?? []).some((t) => t.effect === 'NoExecute'));
  });
});
