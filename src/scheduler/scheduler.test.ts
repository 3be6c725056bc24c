// The scheduler in a real server, driven as a user's test would (@kubernetes/client-node):
// pods bound to the nodes that fit, a pod that fits nowhere marked with kube's condition
// and Event and placed once a node that fits appears, another scheduler's pods left alone,
// and preemption of a lower-priority pod.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startApiServer, type ApiServerHandle } from '../lib/index.js';
import { eventually } from '../testing/wait.js';
import { group } from '../naming/index.js';

function node(name: string, cpu: string, extra: Partial<k8s.V1Node> = {}): k8s.V1Node {
  return {
    metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    spec: extra.spec ?? {},
    status: { allocatable: { cpu, memory: '8Gi', pods: '110' }, capacity: { cpu, memory: '8Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

function pod(name: string, cpu: string, spec: Partial<k8s.V1PodSpec> = {}): k8s.V1Pod {
  return { metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu } } }], ...spec } };
}

for (const flavor of ['kubernetes', 'orch'] as const) {
  describe(`the scheduler in the server (${flavor} flavor)`, () => {
    let server: ApiServerHandle;
    let core: k8s.CoreV1Api;
    const ns = 'default';

    before(async () => {
      server = await startApiServer({ flavor, scheduler: true });
      core = server.kubeConfig(k8s.KubeConfig).makeApiClient(k8s.CoreV1Api);
    });
    after(() => server?.stop());

    const nodeOf = async (name: string): Promise<string | undefined> => (await core.readNamespacedPod({ name, namespace: ns })).spec?.nodeName || undefined;
    const scheduledCondition = async (name: string) => (await core.readNamespacedPod({ name, namespace: ns })).status?.conditions?.find((c) => c.type === 'PodScheduled');

    test('without nodes a pod is unschedulable, and it is placed once a node appears', async () => {
      await core.createNamespacedPod({ namespace: ns, body: pod('early', '100m') });
      const cond = await eventually(async () => ((await scheduledCondition('early'))?.status === 'False' ? scheduledCondition('early') : undefined), 'PodScheduled=False');
      assert.equal(cond?.reason, 'Unschedulable');
      assert.equal(cond?.message, 'no nodes available to schedule pods');
      await core.createNode({ body: node('n1', '2') });
      assert.equal(await eventually(() => nodeOf('early'), 'the pod bound'), 'n1');
      const after = await scheduledCondition('early');
      assert.equal(after?.status, 'True');
    });

    test('a pod goes to the node it fits on; one that fits nowhere gets the reasons and a FailedScheduling Event', async () => {
      await core.createNode({ body: node('big', '16') });
      await core.createNamespacedPod({ namespace: ns, body: pod('heavy', '8') });
      assert.equal(await eventually(() => nodeOf('heavy'), 'heavy bound'), 'big');
      await core.createNamespacedPod({ namespace: ns, body: pod('giant', '64') });
      const cond = await eventually(async () => {
        const c = await scheduledCondition('giant');
        return c?.status === 'False' && c.message?.startsWith('0/') ? c : undefined;
      }, 'giant unschedulable');
      assert.equal(cond.message, '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod..');
      const events = await eventually(async () => {
        const list = await core.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.name=giant' });
        return list.items.find((e) => e.reason === 'FailedScheduling');
      }, 'FailedScheduling event');
      assert.equal(events.type, 'Warning');
      assert.equal(events.message, cond.message);
      const scheduled = await eventually(async () => {
        const list = await core.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.name=heavy' });
        return list.items.find((e) => e.reason === 'Scheduled');
      }, 'Scheduled event');
      assert.equal(scheduled.message, `Successfully assigned ${ns}/heavy to big`);
    });

    test("another scheduler's pods are left alone", async () => {
      await core.createNamespacedPod({ namespace: ns, body: pod('custom', '10m', { schedulerName: 'my-scheduler' }) });
      await core.createNamespacedPod({ namespace: ns, body: pod('marker', '10m') });
      await eventually(() => nodeOf('marker'), 'a later default pod bound');
      await server.settled();
      const custom = await core.readNamespacedPod({ name: 'custom', namespace: ns });
      assert.equal(custom.spec?.nodeName, undefined);
      assert.equal(custom.status?.conditions, undefined);
    });

    test('a higher-priority pod preempts a lower one', async () => {
      // The flavor's own group: client-node's typed API knows only the stock one.
      const objects = k8s.KubernetesObjectApi.makeApiClient(server.kubeConfig(k8s.KubeConfig));
      await objects.create({ apiVersion: `${group('scheduling')}/v1`, kind: 'PriorityClass', metadata: { name: 'urgent' }, value: 1_000_000 } as k8s.KubernetesObject);
      await core.createNode({ body: node('tiny', '1', { spec: { taints: [{ key: 'tiny', effect: 'NoSchedule' }] } }) });
      const tolerate = [{ key: 'tiny', operator: 'Exists', effect: 'NoSchedule' }];
      const only = { nodeSelector: { 'kubernetes.io/hostname': 'tiny' }, tolerations: tolerate };
      await core.createNamespacedPod({ namespace: ns, body: pod('victim', '800m', only) });
      assert.equal(await eventually(() => nodeOf('victim'), 'victim bound'), 'tiny');
      await core.createNamespacedPod({ namespace: ns, body: pod('vip', '800m', { ...only, priorityClassName: 'urgent' }) });
      const nominated = await eventually(async () => (await core.readNamespacedPod({ name: 'vip', namespace: ns })).status?.nominatedNodeName, 'nominated');
      assert.equal(nominated, 'tiny');
      // The victim is deleted gracefully: nothing runs it here, so the test finishes the deletion.
      await eventually(async () => (await core.readNamespacedPod({ name: 'victim', namespace: ns })).metadata?.deletionTimestamp, 'victim terminating');
      const victim = await core.readNamespacedPod({ name: 'victim', namespace: ns });
      const target = victim.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
      assert.equal(target?.reason, 'PreemptionByScheduler');
      await core.deleteNamespacedPod({ name: 'victim', namespace: ns, gracePeriodSeconds: 0 });
      assert.equal(await eventually(() => nodeOf('vip'), 'vip bound'), 'tiny');
    });
  });
}
