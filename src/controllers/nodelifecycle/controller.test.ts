import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { FakeClock, startApiServer, type ApiServerHandle } from '../../lib/index.js';
import { setFlavor } from '../../naming/index.js';
import { eventually } from '../../testing/wait.js';
import { evictionTime } from './controller.js';
import { desiredNoScheduleTaints, reconcileTaints } from './taints.js';

describe('taint rules (pure)', () => {
  before(() => setFlavor('kubernetes'));
  test('conditions and cordons call for NoSchedule taints; others on the node are kept', () => {
    const node = { spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'False' }, { type: 'DiskPressure', status: 'True' }] } };
    assert.deepEqual(desiredNoScheduleTaints(node).map((t) => t.key), ['node.kubernetes.io/not-ready', 'node.kubernetes.io/disk-pressure', 'node.kubernetes.io/unschedulable']);
    const mine = { key: 'dedicated', value: 'infra', effect: 'NoSchedule' as const };
    const next = reconcileTaints([mine, { key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule' }], [], 'unreachable', 't0');
    assert.deepEqual(next, [mine, { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: 't0' }]);
    assert.equal(reconcileTaints([mine], [], undefined, 't0'), undefined, 'nothing to change');
  });
  test('eviction time: at once without a toleration, after the shortest tolerationSeconds, never when tolerated forever', () => {
    const taint = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' as const, timeAdded: '2026-01-01T00:00:00Z' };
    const t0 = Date.parse(taint.timeAdded);
    assert.equal(evictionTime([taint], []), -Infinity);
    assert.equal(evictionTime([taint], [{ key: taint.key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }, { operator: 'Exists', tolerationSeconds: 60 }]), t0 + 60_000);
    assert.equal(evictionTime([taint], [{ operator: 'Exists' }]), undefined);
  });
});

for (const flavor of ['kubernetes', 'orch'] as const) {
  describe(`a node that goes silent (${flavor} flavor)`, () => {
    let server: ApiServerHandle;
    let core: k8s.CoreV1Api;
    const clock = new FakeClock(new Date('2026-01-01T00:00:00Z'));

    before(async () => {
      server = await startApiServer({ flavor, clock });
      core = server.kubeConfig(k8s.KubeConfig).makeApiClient(k8s.CoreV1Api);
    });
    after(() => server?.stop());

    test('becomes Unknown and unreachable; pods are evicted when their tolerations run out', async () => {
      const key = (name: string): string => `node.${flavor === 'orch' ? 'orch.io' : 'kubernetes.io'}/${name}`;
      await core.createNode({ body: { metadata: { name: 'n1' } } });
      await core.replaceNodeStatus({ name: 'n1', body: { metadata: { name: 'n1' }, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: clock.now(), lastTransitionTime: clock.now() }] } } });
      // The not-ready taint admission put on the new node goes once it reports Ready.
      await eventually(async () => ((await core.readNode({ name: 'n1' })).spec?.taints ?? []).length === 0 || undefined, 'taints cleared');
      const pod = (name: string, tolerationSeconds?: number): k8s.V1Pod => ({
        metadata: { name },
        spec: {
          nodeName: 'n1',
          containers: [{ name: 'c', image: 'x' }],
          tolerations: tolerationSeconds === undefined ? [] : [{ key: key('unreachable'), operator: 'Exists', effect: 'NoExecute', tolerationSeconds }],
        },
      });
      await core.createNamespacedPod({ namespace: 'default', body: pod('brief', 0) });
      await core.createNamespacedPod({ namespace: 'default', body: pod('patient', 300) });
      await server.settled();
      clock.step(41_000);
      await server.settled();
      clock.step(5_000);
      const node = await eventually(async () => {
        const n = await core.readNode({ name: 'n1' });
        return n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'Unknown' ? n : undefined;
      }, 'Ready=Unknown');
      const ready = node.status!.conditions!.find((c) => c.type === 'Ready')!;
      assert.equal(ready.reason, 'NodeStatusUnknown');
      assert.equal(ready.message, 'Kubelet stopped posting node status.');
      const taints = await eventually(async () => {
        const t = (await core.readNode({ name: 'n1' })).spec?.taints ?? [];
        return t.length === 2 ? t : undefined;
      }, 'unreachable taints');
      assert.deepEqual(taints.map((t) => `${t.key}:${t.effect}`).sort(), [`${key('unreachable')}:NoExecute`, `${key('unreachable')}:NoSchedule`]);
      const deleting = async (name: string): Promise<boolean> => (await core.readNamespacedPod({ name, namespace: 'default' })).metadata?.deletionTimestamp !== undefined;
      await eventually(async () => (await deleting('brief')) || undefined, 'brief evicted');
      const brief = await core.readNamespacedPod({ name: 'brief', namespace: 'default' });
      assert.equal(brief.status?.conditions?.find((c) => c.type === 'DisruptionTarget')?.reason, 'DeletionByTaintManager');
      assert.equal(brief.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'False');
      await server.settled();
      assert.equal(await deleting('patient'), false, 'tolerated for 300 s');
      clock.step(300_000);
      await eventually(async () => (await deleting('patient')) || undefined, 'patient evicted after its tolerationSeconds');
    });
  });
}
