import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import type { KubeObject } from '../../apimachinery/types.js';
import { setFlavor } from '../../naming/index.js';
import { nodeTaintKey } from '../../apis/core/helpers/node.js';
import { eventually } from '../../testing/wait.js';
import { CONTROLLERREVISIONS } from '../history/revisions.js';
import { podNames, PODS, setPodStatus, start, type Harness } from '../statefulset/harness.test.js';
import { DAEMONSETS, NODES, type DaemonSetStatus } from './controller.js';
import { daemonSetControllerDescriptor, nodeShouldRunDaemonPod, targetNodeName, withDaemonTolerations, withNodeAffinity } from './index.js';

function ds(name: string, extra: Record<string, unknown> = {}, podSpec: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'agent:1' }], ...podSpec } },
      ...extra,
    },
  };
}

function node(name: string, labels: Record<string, string> = {}, spec: Record<string, unknown> = {}): KubeObject {
  return { metadata: { name, labels }, spec };
}

async function statusOf(h: Harness, name = 'agent'): Promise<DaemonSetStatus> {
  return ((await h.client.get(DAEMONSETS, 'default', name)).status ?? {}) as DaemonSetStatus;
}

async function podsByNode(h: Harness): Promise<Map<string, KubeObject[]>> {
  const out = new Map<string, KubeObject[]>();
  for (const p of (await h.client.list(PODS, 'default')).items) {
    if (p.metadata?.deletionTimestamp) continue;
    const n = targetNodeName(p) ?? '';
    out.set(n, [...(out.get(n) ?? []), p]);
  }
  return out;
}

async function waitNodes(h: Harness, nodes: string[]): Promise<Map<string, KubeObject[]>> {
  return eventually(async () => {
    const m = await podsByNode(h);
    return JSON.stringify([...m.keys()].sort()) === JSON.stringify(nodes) && [...m.values()].every((l) => l.length === 1) ? m : undefined;
  }, `one pod on each of ${nodes.join(',')}`);
}

test('one pod per eligible node, pinned by node affinity, with the daemon tolerations; status counts', async () => {
  const h = await start(daemonSetControllerDescriptor);
  try {
    await h.client.create(NODES, '', node('n1', { disk: 'ssd' }));
    await h.client.create(NODES, '', node('n2', { disk: 'ssd' }, { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] }));
    await h.client.create(NODES, '', node('n3', { disk: 'hdd' }));
    await h.client.create(NODES, '', node('n4', { disk: 'ssd' }, { unschedulable: true, taints: [{ key: nodeTaintKey('unschedulable'), effect: 'NoSchedule' }] }));
    const created = await h.client.create(DAEMONSETS, 'default', ds('agent', {}, { nodeSelector: { disk: 'ssd' } }));
    const pods = await waitNodes(h, ['n1', 'n4']);
    const p = pods.get('n1')![0];
    assert.match(p.metadata?.name ?? '', /^agent-[a-z0-9]{5}$/);
    const spec = p.spec as { nodeName?: string; affinity: unknown; tolerations: { key: string; effect: string; operator: string }[] };
    assert.equal(spec.nodeName, undefined, 'the scheduler binds it');
    assert.deepEqual(spec.affinity, { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] } } });
    assert.deepEqual(
      spec.tolerations.map((t) => `${t.key}:${t.effect}:${t.operator}`),
      ['not-ready:NoExecute', 'unreachable:NoExecute', 'disk-pressure:NoSchedule', 'memory-pressure:NoSchedule', 'pid-pressure:NoSchedule', 'unschedulable:NoSchedule'].map((s) => `${nodeTaintKey(s.split(':')[0] as 'not-ready')}:${s.split(':')[1]}:Exists`),
    );
    assert.equal(p.metadata?.labels?.['pod-template-generation'], '1');
    const hash = p.metadata?.labels?.['controller-revision-hash'];
    const revision = await h.client.get(CONTROLLERREVISIONS, 'default', `agent-${hash}`);
    assert.equal(revision.revision, 1);
    assert.equal(revision.metadata?.ownerReferences?.[0]?.uid, created.metadata?.uid);
    await h.settle();
    let s = await statusOf(h);
    assert.deepEqual(
      [s.desiredNumberScheduled, s.currentNumberScheduled, s.numberMisscheduled, s.numberReady, s.updatedNumberScheduled, s.numberAvailable ?? 0, s.numberUnavailable, s.observedGeneration],
      [2, 2, 0, 0, 2, 0, 2, 1],
    );
    assert.ok(!('numberAvailable' in s), 'a zero optional count is left out, as the API omits it');
    await setPodStatus(h.client, p.metadata?.name ?? '', h.clock.now());
    await eventually(async () => ((s = await statusOf(h)).numberReady === 1 ? true : undefined), 'one ready');
    assert.equal(s.numberAvailable, 1);
    assert.equal(s.numberUnavailable, 1);
    assert.ok(h.recorder.events.some((e) => e.reason === 'SuccessfulCreate' && e.note === `Created pod: ${p.metadata?.name ?? ''}`));

    // A node that starts to match gets a pod; one with an untolerated NoExecute taint loses its pod.
    await h.client.patch(NODES, '', 'n3', { metadata: { labels: { disk: 'ssd' } } });
    await waitNodes(h, ['n1', 'n3', 'n4']);
    await h.client.patch(NODES, '', 'n1', { spec: { taints: [{ key: 'evict', effect: 'NoExecute' }] } });
    await waitNodes(h, ['n3', 'n4']);
    // A NoSchedule taint keeps the pod there, counted as misscheduled.
    await h.client.patch(NODES, '', 'n3', { spec: { taints: [{ key: 'dedicated', effect: 'NoSchedule' }] } });
    await eventually(async () => ((s = await statusOf(h)).numberMisscheduled === 1 ? true : undefined), 'misscheduled');
    assert.equal(s.desiredNumberScheduled, 1);
    assert.equal((await podsByNode(h)).get('n3')?.length, 1);
    assert.deepEqual(h.errors, []);
  } finally {
    await h.close();
  }
});

test('an unbound pod whose node is deleted is deleted', async () => {
  const h = await start(daemonSetControllerDescriptor);
  try {
    await h.client.create(NODES, '', node('n1'));
    await h.client.create(NODES, '', node('n2'));
    await h.client.create(DAEMONSETS, 'default', ds('agent'));
    await waitNodes(h, ['n1', 'n2']);
    await h.client.delete(NODES, '', 'n2');
    await waitNodes(h, ['n1']);
    assert.equal((await statusOf(h)).desiredNumberScheduled, 1);
  } finally {
    await h.close();
  }
});

test('a failed daemon pod is deleted and replaced, with a back-off per node', async () => {
  const h = await start(daemonSetControllerDescriptor);
  try {
    await h.client.create(NODES, '', node('n1'));
    await h.client.create(DAEMONSETS, 'default', ds('agent'));
    const first = (await waitNodes(h, ['n1'])).get('n1')![0].metadata?.name ?? '';
    await setPodStatus(h.client, first, h.clock.now(), 'Failed', false);
    const second = await eventually(async () => {
      const names = await podNames(h.client);
      return names.length === 1 && names[0] !== first ? names[0] : undefined;
    }, 'a replacement');
    assert.ok(h.recorder.events.some((e) => e.reason === 'FailedDaemonPod' && e.note === `Found failed daemon pod default/${first} on node n1, will try to kill it`));
    // Failing again within the back-off (1 s, doubled to 2 s): the failed pod stays until it passes.
    await setPodStatus(h.client, second, h.clock.now(), 'Failed', false);
    await h.settle();
    h.clock.step(500);
    await h.settle();
    const failedNow = (await h.client.list(PODS, 'default')).items.filter((p) => (p.status as { phase?: string }).phase === 'Failed').map((p) => p.metadata?.name);
    assert.deepEqual(failedNow, [second], 'not deleted within the back-off');
    h.clock.step(600);
    await eventually(async () => ((await podNames(h.client)).includes(second) ? undefined : true), 'deleted after the back-off');
  } finally {
    await h.close();
  }
});

test('RollingUpdate replaces at most maxUnavailable pods at a time; OnDelete leaves them', async () => {
  const h = await start(daemonSetControllerDescriptor);
  try {
    for (const n of ['n1', 'n2', 'n3']) await h.client.create(NODES, '', node(n));
    await h.client.create(DAEMONSETS, 'default', ds('agent'));
    let pods = await waitNodes(h, ['n1', 'n2', 'n3']);
    for (const [, [p]] of pods) await setPodStatus(h.client, p.metadata?.name ?? '', h.clock.now());
    await eventually(async () => ((await statusOf(h)).numberAvailable === 3 ? true : undefined), 'available');
    const oldNames = new Set([...pods.values()].map(([p]) => p.metadata?.name));
    await h.client.patch(DAEMONSETS, 'default', 'agent', { spec: { template: { spec: { containers: [{ name: 'c', image: 'agent:2' }] } } } });
    const image = (p: KubeObject): string => (p.spec as { containers: { image: string }[] }).containers[0].image;
    pods = await eventually(async () => {
      const m = await podsByNode(h);
      return [...m.values()].flat().some((p) => image(p) === 'agent:2') && m.size === 3 ? m : undefined;
    }, 'one updated');
    await h.settle();
    const all = [...pods.values()].flat();
    assert.equal(all.filter((p) => image(p) === 'agent:2').length, 1, 'one at a time');
    assert.equal(all.filter((p) => oldNames.has(p.metadata?.name)).length, 2);
    const updated = all.find((p) => image(p) === 'agent:2')!;
    assert.equal(updated.metadata?.labels?.['pod-template-generation'], '2');
    await setPodStatus(h.client, updated.metadata?.name ?? '', h.clock.now());
    await eventually(async () => ([...(await podsByNode(h)).values()].flat().filter((p) => image(p) === 'agent:2').length === 2 ? true : undefined), 'two updated');
    const s = await statusOf(h);
    assert.equal(s.updatedNumberScheduled, 2);
    assert.equal((await h.client.list(CONTROLLERREVISIONS, 'default')).items.length, 2);

    await h.client.patch(DAEMONSETS, 'default', 'agent', { spec: { updateStrategy: { type: 'OnDelete', rollingUpdate: null }, template: { spec: { containers: [{ name: 'c', image: 'agent:3' }] } } } });
    await h.settle();
    assert.equal([...(await podsByNode(h)).values()].flat().filter((p) => image(p) === 'agent:3').length, 0);
  } finally {
    await h.close();
  }
});

test('maxSurge starts the new pod beside the old one and removes the old one once the new is available', async () => {
  const h = await start(daemonSetControllerDescriptor);
  try {
    await h.client.create(NODES, '', node('n1'));
    await h.client.create(DAEMONSETS, 'default', ds('agent', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }));
    const old = (await waitNodes(h, ['n1'])).get('n1')![0].metadata?.name ?? '';
    await setPodStatus(h.client, old, h.clock.now());
    await eventually(async () => ((await statusOf(h)).numberAvailable === 1 ? true : undefined), 'available');
    await h.client.patch(DAEMONSETS, 'default', 'agent', { spec: { template: { spec: { containers: [{ name: 'c', image: 'agent:2' }] } } } });
    const names = await eventually(async () => {
      const n = await podNames(h.client);
      return n.length === 2 ? n : undefined;
    }, 'two pods on n1');
    const fresh = names.find((n) => n !== old)!;
    await h.settle();
    assert.deepEqual((await podNames(h.client)).sort(), [old, fresh].sort(), 'the old pod stays while the new one is not available');
    await setPodStatus(h.client, fresh, h.clock.now());
    await eventually(async () => (JSON.stringify(await podNames(h.client)) === JSON.stringify([fresh]) ? true : undefined), 'old pod removed');
  } finally {
    await h.close();
  }
});

for (const flavor of ['orch', 'kubernetes'] as const) {
  describe(`daemon pod placement (${flavor} flavor)`, () => {
    before(() => setFlavor(flavor));
    after(() => setFlavor('orch'));
    it('adds the default tolerations (network-unavailable for host network) once, and keeps the user’s', () => {
      const domain = flavor === 'kubernetes' ? 'kubernetes.io' : 'orch.io';
      const spec = withDaemonTolerations({ hostNetwork: true, tolerations: [{ key: `node.${domain}/not-ready`, operator: 'Exists', effect: 'NoExecute' }, { key: 'x', operator: 'Exists' }] });
      const keys = (spec.tolerations as { key: string; effect: string }[]).map((t) => `${t.key}/${t.effect}`);
      assert.deepEqual(keys, [
        `node.${domain}/not-ready/NoExecute`,
        'x/undefined',
        `node.${domain}/unreachable/NoExecute`,
        `node.${domain}/disk-pressure/NoSchedule`,
        `node.${domain}/memory-pressure/NoSchedule`,
        `node.${domain}/pid-pressure/NoSchedule`,
        `node.${domain}/unschedulable/NoSchedule`,
        `node.${domain}/network-unavailable/NoSchedule`,
      ]);
      // Pressure taints of the flavor are tolerated; a node not ready (NoExecute) keeps its daemon.
      const n = node('n', {}, { taints: [{ key: `node.${domain}/memory-pressure`, effect: 'NoSchedule' }, { key: `node.${domain}/not-ready`, effect: 'NoExecute' }] });
      assert.deepEqual(nodeShouldRunDaemonPod({}, n), { shouldRun: true, shouldContinueRunning: true });
      const other = flavor === 'kubernetes' ? 'orch.io' : 'kubernetes.io';
      const foreign = node('n', {}, { taints: [{ key: `node.${other}/memory-pressure`, effect: 'NoSchedule' }] });
      assert.deepEqual(nodeShouldRunDaemonPod({}, foreign), { shouldRun: false, shouldContinueRunning: true });
    });
  });
}

test('the node affinity replaces required terms and keeps preferred ones; node name and affinity decide the fit', () => {
  const spec = withNodeAffinity(
    {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] },
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: 'gpu', operator: 'Exists' }] } }],
        },
      },
    },
    'n7',
  );
  assert.equal(targetNodeName({ spec } as KubeObject), 'n7');
  const na = (spec.affinity as { nodeAffinity: Record<string, unknown> }).nodeAffinity;
  assert.deepEqual(na.requiredDuringSchedulingIgnoredDuringExecution, { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n7'] }] }] });
  assert.equal((na.preferredDuringSchedulingIgnoredDuringExecution as unknown[]).length, 1);
  const required = { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } } } };
  assert.equal(nodeShouldRunDaemonPod(required, node('a', { zone: 'a' })).shouldRun, true);
  assert.deepEqual(nodeShouldRunDaemonPod(required, node('b', { zone: 'b' })), { shouldRun: false, shouldContinueRunning: false });
  assert.equal(nodeShouldRunDaemonPod({ nodeName: 'a' }, node('b')).shouldRun, false);
});

test('pods carry the template generation the server keeps in its annotation, else the generation', async () => {
  const { newDaemonPod } = await import('./index.js');
  const base = ds('agent');
  const withAnnotation: KubeObject = { ...base, metadata: { ...base.metadata, generation: 9, annotations: { 'deprecated.daemonset.template.generation': '7' } } };
  assert.equal(newDaemonPod(withAnnotation, 'h', 'n1').metadata?.labels?.['pod-template-generation'], '7');
  const hostile: KubeObject = { ...base, metadata: { ...base.metadata, generation: 9, annotations: { 'deprecated.daemonset.template.generation': '1e400' } } };
  assert.equal(newDaemonPod(hostile, 'h', 'n1').metadata?.labels?.['pod-template-generation'], '9');
});

test('a pod relabelled out of the selector is released and replaced', async () => {
  const h = await start(daemonSetControllerDescriptor);
  try {
    await h.client.create(NODES, '', node('n1'));
    await h.client.create(DAEMONSETS, 'default', ds('agent'));
    const first = (await waitNodes(h, ['n1'])).get('n1')![0].metadata?.name ?? '';
    await h.client.patch(PODS, 'default', first, { metadata: { labels: { app: 'other' } } });
    await eventually(async () => ((await h.client.get(PODS, 'default', first)).metadata?.ownerReferences === undefined ? true : undefined), 'released');
    await eventually(async () => ((await podNames(h.client)).length === 2 ? true : undefined), 'a replacement beside it');
  } finally {
    await h.close();
  }
});

test('an old pod that is not available is replaced outside the maxUnavailable budget', async () => {
  const h = await start(daemonSetControllerDescriptor);
  try {
    for (const n of ['n1', 'n2', 'n3']) await h.client.create(NODES, '', node(n));
    await h.client.create(DAEMONSETS, 'default', ds('agent'));
    const pods = await waitNodes(h, ['n1', 'n2', 'n3']);
    await setPodStatus(h.client, pods.get('n1')![0].metadata?.name ?? '', h.clock.now());
    await setPodStatus(h.client, pods.get('n2')![0].metadata?.name ?? '', h.clock.now());
    await eventually(async () => ((await statusOf(h)).numberAvailable === 2 ? true : undefined), 'two available');
    const old = new Set([...pods.values()].map(([p]) => p.metadata?.name));
    await h.client.patch(DAEMONSETS, 'default', 'agent', { spec: { template: { spec: { containers: [{ name: 'c', image: 'agent:2' }] } } } });
    await eventually(async () => ((await podNames(h.client)).filter((n) => old.has(n)).length <= 1 ? true : undefined), 'n3 and one available pod replaced');
    await h.settle();
    assert.equal((await podNames(h.client)).filter((n) => old.has(n)).length, 1);
    assert.ok(!(await podNames(h.client)).includes(pods.get('n3')![0].metadata?.name ?? ''), 'the unavailable one went');
  } finally {
    await h.close();
  }
});

test('with maxSurge, an old pod that is not available gets its replacement beside it outside the budget', async () => {
  const h = await start(daemonSetControllerDescriptor);
  try {
    await h.client.create(NODES, '', node('n1'));
    await h.client.create(NODES, '', node('n2'));
    await h.client.create(DAEMONSETS, 'default', ds('agent', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }));
    const old = [...(await waitNodes(h, ['n1', 'n2'])).values()].map(([p]) => p.metadata?.name ?? '');
    await h.client.patch(DAEMONSETS, 'default', 'agent', { spec: { template: { spec: { containers: [{ name: 'c', image: 'agent:2' }] } } } });
    await eventually(async () => ((await podNames(h.client)).length === 4 ? true : undefined), 'a new pod beside each old one');
    await h.settle();
    const names = await podNames(h.client);
    assert.equal(names.length, 4);
    assert.ok(old.every((n) => names.includes(n)), 'the old pods stay until the new ones are available');
  } finally {
    await h.close();
  }
});
