// The node agent over the real registry (memory storage) and the in-process client, with a
// FakeClock: nodes, leases, pods through their stages, graceful deletion, user stages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinResourceDefinitions } from '../apis/definitions.js';
import { FakeClock } from '../apimachinery/clock.js';
import { ApiError, isApiError } from '../apimachinery/errors.js';
import type { ApiClient } from '../client/types.js';
import type { KubeObject } from '../apimachinery/types.js';
import { group, KWOK_NODE_ANNOTATION, setFlavor, systemNamespace } from '../naming/index.js';
import { LoopbackClient } from '../server/loopback.js';
import { memoryTable } from '../testing/memory-table.js';
import { eventually } from '../testing/wait.js';
import { NodeAgent, type NodeAgentOptions } from './agent.js';
import { configFromDocuments, parseConfigText } from './config.js';

setFlavor('kubernetes');

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const NODES = { group: '', version: 'v1', resource: 'nodes' };
const PODS = { group: '', version: 'v1', resource: 'pods' };
const LEASES = () => ({ group: group('coordination'), version: 'v1', resource: 'leases' });

interface Harness {
  client: LoopbackClient;
  clock: FakeClock;
  agent: NodeAgent;
  errors: unknown[];
  settle(): Promise<void>;
  step(ms: number): Promise<void>;
  close(): Promise<void>;
}

async function start(opts: Partial<NodeAgentOptions> = {}, wrap: (c: ApiClient) => ApiClient = (c) => c): Promise<Harness> {
  const defs = builtinResourceDefinitions({ runtimeConfig: '' }).filter(
    (d) =>
      (d.group === '' && d.version === 'v1' && ['namespaces', 'pods', 'nodes'].includes(d.resource)) ||
      (d.group === group('coordination') && d.version === 'v1') ||
      (d.group === group('events') && d.version === 'v1'),
  );
  const clock = new FakeClock(Date.UTC(2024, 0, 1, 0, 0, 0));
  const { table, close } = memoryTable(defs, { now: () => clock.now() });
  const client = new LoopbackClient(table, { username: 'admin', groups: ['system:masters'] });
  const errors: unknown[] = [];
  const agent = new NodeAgent({ client: wrap(client), clock, random: () => 0, onError: (e) => errors.push(e), ...opts });
  await agent.start();
  const settle = async (): Promise<void> => {
    let quiet = 0;
    await eventually(async () => {
      await new Promise((r) => setTimeout(r, 5));
      quiet = agent.idle() ? quiet + 1 : 0;
      return quiet >= 3;
    }, 'the node agent to settle');
  };
  await settle();
  return {
    client,
    clock,
    agent,
    errors,
    settle,
    async step(ms) {
      clock.step(ms);
      await settle();
    },
    async close() {
      await agent.stop();
      await close();
    },
  };
}

const podOn = (name: string, nodeName: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', ...((extra.metadata as object) ?? {}) },
  spec: { nodeName, containers: [{ name: 'app', image: 'nginx:1.25' }], ...((extra.spec as object) ?? {}) },
});

test('--simulated-nodes 3: three Ready nodes with their resources, and leases renewed every 10 s', async () => {
  const h = await start({ nodes: 3 });
  try {
    const nodes = (await h.client.list(NODES, '')).items as J[];
    assert.deepEqual(
      nodes.map((n) => n.metadata.name),
      ['node-000000', 'node-000001', 'node-000002'],
    );
    const ips = new Set<string>();
    for (const n of nodes) {
      assert.equal(n.metadata.annotations[KWOK_NODE_ANNOTATION], 'fake');
      assert.equal(n.metadata.labels['kubernetes.io/hostname'], n.metadata.name);
      const ready = n.status.conditions.find((c: J) => c.type === 'Ready');
      assert.deepEqual([ready.status, ready.reason, ready.message], ['True', 'KubeletReady', 'kubelet is posting ready status']);
      for (const t of ['MemoryPressure', 'DiskPressure', 'PIDPressure']) assert.equal(n.status.conditions.find((c: J) => c.type === t).status, 'False');
      assert.deepEqual(n.status.capacity, { cpu: '32', 'ephemeral-storage': '1Ti', memory: '256Gi', pods: '110' });
      assert.deepEqual(n.status.allocatable, n.status.capacity);
      assert.equal(n.status.nodeInfo.kubeletVersion, 'v1.27.16');
      assert.equal(n.status.nodeInfo.architecture, 'amd64');
      assert.equal(n.status.nodeInfo.operatingSystem, 'linux');
      const ip = n.status.addresses.find((a: J) => a.type === 'InternalIP').address;
      ips.add(ip);
    }
    assert.deepEqual([...ips].sort(), ['192.0.2.1', '192.0.2.2', '192.0.2.3']);

    const leases = async (): Promise<J[]> => (await h.client.list(LEASES(), systemNamespace('node-lease'))).items as J[];
    const first = await leases();
    assert.equal(first.length, 3);
    for (const l of first) {
      const node = nodes.find((n) => n.metadata.name === l.metadata.name);
      assert.equal(l.spec.holderIdentity, l.metadata.name);
      assert.equal(l.spec.leaseDurationSeconds, 40);
      assert.equal(l.spec.renewTime, '2024-01-01T00:00:00.000000Z');
      assert.deepEqual(l.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: node.metadata.name, uid: node.metadata.uid }]);
    }
    const writes = h.agent.leaseWrites();
    await h.step(10_000);
    const renewed = await leases();
    for (const l of renewed) assert.ok(l.spec.renewTime > '2024-01-01T00:00:00.000000Z' && l.spec.renewTime <= '2024-01-01T00:00:10.000000Z', l.spec.renewTime);
    assert.equal(h.agent.leaseWrites() - writes, 3, 'one renewal per node per period');
    await h.step(10_000);
    assert.equal(h.agent.leaseWrites() - writes, 6);
    // Node status is not rewritten every period: only the heartbeat stage, minutes apart.
    const rv = (await h.client.get(NODES, '', 'node-000000')).metadata?.resourceVersion;
    await h.step(10_000);
    assert.equal((await h.client.get(NODES, '', 'node-000000')).metadata?.resourceVersion, rv);
    assert.deepEqual(h.errors, []);
  } finally {
    await h.close();
  }
});

test('a pod with spec.nodeName on a simulated node reaches Running with every status field; IPs come from the podCIDR', async () => {
  const h = await start({ nodes: 1 });
  try {
    await h.client.patch(NODES, '', 'node-000000', { spec: { podCIDR: '10.244.3.0/24', podCIDRs: ['10.244.3.0/24'] } });
    await h.settle();
    await h.client.create(PODS, 'default', podOn('web', 'node-000000', { spec: { initContainers: [{ name: 'init', image: 'busybox' }] } }));
    await h.client.create(PODS, 'default', podOn('web2', 'node-000000'));
    await h.client.create(PODS, 'default', podOn('host', 'node-000000', { spec: { hostNetwork: true } }));
    await h.settle();
    const pod = (await h.client.get(PODS, 'default', 'web')) as J;
    const s = pod.status;
    assert.equal(s.phase, 'Running');
    assert.equal(s.hostIP, '192.0.2.1');
    assert.equal(s.podIP, '10.244.3.1');
    assert.deepEqual(s.podIPs, [{ ip: '10.244.3.1' }]);
    assert.equal(s.startTime, '2024-01-01T00:00:00Z');
    assert.deepEqual(
      s.conditions.map((c: J) => `${c.type}=${c.status}`).sort(),
      ['ContainersReady=True', 'Initialized=True', 'PodScheduled=True', 'Ready=True'],
    );
    const c = s.containerStatuses[0];
    assert.deepEqual([c.name, c.image, c.ready, c.started, c.restartCount], ['app', 'nginx:1.25', true, true, 0]);
    assert.match(c.imageID, /^nginx@sha256:[0-9a-f]{64}$/);
    assert.match(c.containerID, /^kwok:\/\/[0-9a-f]{64}$/);
    assert.deepEqual(c.state, { running: { startedAt: '2024-01-01T00:00:00Z' } });
    assert.deepEqual([s.initContainerStatuses[0].state.terminated.exitCode, s.initContainerStatuses[0].state.terminated.reason], [0, 'Completed']);
    assert.equal(((await h.client.get(PODS, 'default', 'web2')) as J).status.podIP, '10.244.3.2', 'a free address per pod');
    assert.equal(((await h.client.get(PODS, 'default', 'host')) as J).status.podIP, '192.0.2.1');

    // A pod on a node that is not simulated is left alone.
    await h.client.create(NODES, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'real' } });
    await h.client.create(PODS, 'default', podOn('elsewhere', 'real'));
    await h.settle();
    assert.equal(((await h.client.get(PODS, 'default', 'elsewhere')) as J).status.phase, 'Pending');
    assert.equal(h.agent.isSimulated('real'), false);
    assert.deepEqual(h.errors, []);
  } finally {
    await h.close();
  }
});

test("a Job's pod ends Succeeded after its run time; a pod deleted gracefully is finished and gone", async () => {
  const h = await start({ nodes: 1 });
  try {
    await h.client.create(
      PODS,
      'default',
      podOn('job-pod', 'node-000000', { metadata: { ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: '1d7c1b0e-0000-4000-8000-000000000001', controller: true }] } }),
    );
    await h.settle();
    assert.equal(((await h.client.get(PODS, 'default', 'job-pod')) as J).status.phase, 'Running');
    await h.step(999);
    assert.equal(((await h.client.get(PODS, 'default', 'job-pod')) as J).status.phase, 'Running', 'not before the delay');
    await h.step(1);
    const done = (await h.client.get(PODS, 'default', 'job-pod')) as J;
    assert.equal(done.status.phase, 'Succeeded');
    assert.deepEqual(
      [done.status.containerStatuses[0].state.terminated.exitCode, done.status.containerStatuses[0].state.terminated.reason],
      [0, 'Completed'],
    );

    await h.client.create(PODS, 'default', podOn('leaving', 'node-000000', { spec: { terminationGracePeriodSeconds: 30 } }));
    await h.settle();
    const before = await h.client.get(PODS, 'default', 'leaving');
    await h.client.delete(PODS, 'default', 'leaving');
    await h.settle();
    await assert.rejects(h.client.get(PODS, 'default', 'leaving'), (e: unknown) => isApiError(e) && e.code === 404);
    assert.ok(before.metadata?.uid);

    // With a finalizer of someone else's, the pod stays until that one is removed.
    await h.client.create(PODS, 'default', podOn('held', 'node-000000', { metadata: { finalizers: ['example.com/hold'] } }));
    await h.settle();
    await h.client.delete(PODS, 'default', 'held');
    await h.settle();
    const held = await h.client.get(PODS, 'default', 'held');
    assert.ok(held.metadata?.deletionTimestamp);
    await h.client.patch(PODS, 'default', 'held', { metadata: { finalizers: null } });
    await h.settle();
    await assert.rejects(h.client.get(PODS, 'default', 'held'), (e: unknown) => isApiError(e) && e.code === 404);
    assert.deepEqual(h.errors, []);
  } finally {
    await h.close();
  }
});

test('removing the annotation stops the heartbeat (lease and status); putting it back resumes it', async () => {
  const h = await start({ nodes: 2 });
  try {
    const lease = async (n: string): Promise<string> => ((await h.client.get(LEASES(), systemNamespace('node-lease'), n)) as J).spec.renewTime;
    await h.client.patch(NODES, '', 'node-000001', { metadata: { annotations: { [KWOK_NODE_ANNOTATION]: null } } });
    await h.settle();
    const stopped = await lease('node-000001');
    const nodeRV = (await h.client.get(NODES, '', 'node-000001')).metadata?.resourceVersion;
    await h.step(10_000);
    await h.step(10_000);
    assert.equal(await lease('node-000001'), stopped, 'no renewal once the annotation is gone');
    assert.notEqual(await lease('node-000000'), stopped, 'the other node keeps renewing');
    assert.equal(h.agent.isSimulated('node-000001'), false);
    // Its pods are not played either.
    await h.client.create(PODS, 'default', podOn('orphan', 'node-000001'));
    await h.step(400_000);
    assert.equal(((await h.client.get(PODS, 'default', 'orphan')) as J).status.phase, 'Pending');
    assert.equal((await h.client.get(NODES, '', 'node-000001')).metadata?.resourceVersion, nodeRV, 'nor its status heartbeat, past five minutes');

    await h.client.patch(NODES, '', 'node-000001', { metadata: { annotations: { [KWOK_NODE_ANNOTATION]: 'fake' } } });
    await h.settle();
    assert.ok((await lease('node-000001')) > stopped, 'renewed as soon as it is simulated again');
    assert.equal(((await h.client.get(PODS, 'default', 'orphan')) as J).status.phase, 'Running');
  } finally {
    await h.close();
  }
});

test('a Node anyone creates with the annotation is simulated: initialized, its creator’s resources kept', async () => {
  const h = await start();
  try {
    await h.client.create(NODES, '', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'byhand', annotations: { [KWOK_NODE_ANNOTATION]: 'fake' } },
      status: { capacity: { cpu: '8', 'nvidia.com/gpu': '2' } },
    });
    await h.settle();
    const n = (await h.client.get(NODES, '', 'byhand')) as J;
    assert.equal(n.status.conditions.find((c: J) => c.type === 'Ready').status, 'True');
    assert.equal(n.status.capacity.cpu, '8');
    assert.equal(n.status.capacity['nvidia.com/gpu'], '2');
    assert.equal(n.status.capacity.pods, '110');
    assert.equal(n.status.addresses.find((a: J) => a.type === 'InternalIP').address, '192.0.2.1');
    assert.equal(((await h.client.get(LEASES(), systemNamespace('node-lease'), 'byhand')) as J).spec.holderIdentity, 'byhand');
    // Without a podCIDR, KWOK's fallback range.
    await h.client.create(PODS, 'default', podOn('p', 'byhand'));
    await h.settle();
    assert.equal(((await h.client.get(PODS, 'default', 'p')) as J).status.podIP, '10.0.0.1');
  } finally {
    await h.close();
  }
});

test('user stages: pods fail, or crash-loop with growing restart counts, after their delay', async () => {
  const config = configFromDocuments(
    parseConfigText(
      '/etc/stages.yaml',
      `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: pod-fail}
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchLabels: {outcome: fail}
    matchExpressions:
    - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
    - {key: .status.phase, operator: In, values: [Pending]}
  delay: {durationMilliseconds: 2000}
  next:
    event: {type: Warning, reason: Failed, message: simulated failure}
    statusTemplate: |
      {{ $now := Now }}
      phase: Failed
      hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: false
        restartCount: 0
        state: {terminated: {exitCode: 1, reason: Error, finishedAt: {{ $now | Quote }}}}
      {{ end }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: pod-crash}
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchLabels: {outcome: crash}
    matchExpressions:
    - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
  delay: {durationMilliseconds: 10000}
  next:
    statusTemplate: |
      {{ $restarts := 0 }}
      {{ with .status.containerStatuses }}{{ $restarts = add1 (index . 0).restartCount }}{{ end }}
      phase: Running
      podIP: {{ PodIPWith .spec.nodeName false .metadata.uid .metadata.name .metadata.namespace | Quote }}
      conditions:
      - {type: Ready, status: "False", reason: ContainersNotReady}
      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: false
        restartCount: {{ $restarts }}
        state: {waiting: {reason: CrashLoopBackOff, message: back-off restarting failed container}}
      {{ end }}
`,
    ),
  );
  const h = await start({ nodes: 1, config });
  try {
    await h.client.create(PODS, 'default', podOn('fails', 'node-000000', { metadata: { labels: { outcome: 'fail' } } }));
    await h.client.create(PODS, 'default', podOn('crashes', 'node-000000', { metadata: { labels: { outcome: 'crash' } } }));
    await h.client.create(PODS, 'default', podOn('plain', 'node-000000'));
    await h.settle();
    assert.equal(((await h.client.get(PODS, 'default', 'fails')) as J).status.phase, 'Pending', 'waits for its delay');
    assert.equal(((await h.client.get(PODS, 'default', 'plain')) as J).status.phase, 'Pending', 'given pod stages replace the defaults');
    await h.step(2000);
    const failed = (await h.client.get(PODS, 'default', 'fails')) as J;
    assert.equal(failed.status.phase, 'Failed');
    assert.equal(failed.status.hostIP, '192.0.2.1');
    assert.equal(failed.status.containerStatuses[0].state.terminated.exitCode, 1);
    for (let i = 1; i <= 3; i++) {
      await h.step(10_000);
      const crash = (await h.client.get(PODS, 'default', 'crashes')) as J;
      assert.equal(crash.status.containerStatuses[0].restartCount, i - 1);
      assert.equal(crash.status.containerStatuses[0].state.waiting.reason, 'CrashLoopBackOff');
      assert.equal(crash.status.podIP, '10.0.0.1', 'the pod keeps its address across plays');
    }
    assert.deepEqual(h.errors, []);
  } finally {
    await h.close();
  }
});

test('a lease removed by someone is made again at the next renewal; a deleted node is no longer simulated', async () => {
  const h = await start({ nodes: 2 });
  try {
    await h.client.delete(LEASES(), systemNamespace('node-lease'), 'node-000000');
    await h.step(10_000);
    const again = (await h.client.get(LEASES(), systemNamespace('node-lease'), 'node-000000')) as J;
    assert.equal(again.spec.holderIdentity, 'node-000000');
    assert.ok(again.spec.renewTime > '2024-01-01T00:00:00.000000Z');

    await h.client.delete(NODES, '', 'node-000001');
    await h.settle();
    assert.equal(h.agent.isSimulated('node-000001'), false);
    const writes = h.agent.leaseWrites();
    await h.step(10_000);
    assert.equal(h.agent.leaseWrites() - writes, 1, 'only the remaining node renews');
    assert.deepEqual(h.errors, []);
  } finally {
    await h.close();
  }
});

test("a stage's event is recorded about the object, by the kubelet", async () => {
  const config = configFromDocuments(
    parseConfigText(
      '/etc/events.yaml',
      `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: pod-started}
spec:
  resourceRef: {kind: Pod}
  selector: {matchExpressions: [{key: .status.phase, operator: In, values: [Pending]}]}
  next:
    event: {type: Normal, reason: Started, message: Started container app}
    statusTemplate: 'phase: Running'
`,
    ),
  );
  const h = await start({ nodes: 1, config });
  try {
    await h.client.create(PODS, 'default', podOn('p', 'node-000000'));
    await h.settle();
    const events = await eventually(async () => {
      const list = (await h.client.list({ group: group('events'), version: 'v1', resource: 'events' }, 'default')).items as J[];
      return list.length > 0 ? list : undefined;
    }, 'the Event');
    assert.deepEqual(
      [events[0].reason, events[0].note, events[0].type, events[0].reportingController, events[0].action, events[0].regarding.name],
      ['Started', 'Started container app', 'Normal', 'kubelet', 'pod-started', 'p'],
    );
  } finally {
    await h.close();
  }
});

test('a stage whose status the server refuses, or whose template fails on the object, is reported once, not retried hot', async () => {
  const config = configFromDocuments(
    parseConfigText(
      '/etc/bad.yaml',
      `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: refused}
spec:
  resourceRef: {kind: Pod}
  selector: {matchLabels: {kind: refused}}
  next: {statusTemplate: 'phase: Running'}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: failing}
spec:
  resourceRef: {kind: Pod}
  selector: {matchLabels: {kind: failing}}
  next: {statusTemplate: '{{ div 1 .metadata.labels.zero }}'}
`,
    ),
  );
  let refusals = 0;
  // The server refuses this pod's status as invalid (422), as kube-apiserver refuses a bad status.
  const refusing = (c: ApiClient): ApiClient =>
    Object.assign(Object.create(c) as ApiClient, {
      update: (r: Parameters<ApiClient['update']>[0], ns: string, obj: KubeObject, sub?: string) => {
        if (sub === 'status' && obj.metadata?.name === 'r') {
          refusals++;
          return Promise.reject(new ApiError(422, 'Invalid', 'Pod "r" is invalid: status.phase: Unsupported value'));
        }
        return c.update(r, ns, obj, sub);
      },
    });
  const h = await start({ nodes: 1, config }, refusing);
  try {
    await h.client.create(PODS, 'default', podOn('r', 'node-000000', { metadata: { labels: { kind: 'refused' } } }));
    await h.client.create(PODS, 'default', podOn('f', 'node-000000', { metadata: { labels: { kind: 'failing', zero: '0' } } }));
    await h.settle();
    await new Promise((r) => setTimeout(r, 200));
    await h.settle();
    const messages = h.errors.map((e) => (e instanceof Error ? e.message : String(e)));
    assert.equal(refusals, 1);
    assert.equal(messages.length, 2, messages.join('\n'));
    assert.ok(messages.includes('stage "refused" (/etc/bad.yaml) on Pod default/r: Pod "r" is invalid: status.phase: Unsupported value'), messages.join('\n'));
    assert.ok(messages.includes('stage "failing" (/etc/bad.yaml) on Pod default/f: div: division by zero'), messages.join('\n'));
    // A change of the object decides again.
    await h.client.patch(PODS, 'default', 'r', { metadata: { labels: { again: 'yes' } } });
    await h.settle();
    assert.equal(refusals, 2);
  } finally {
    await h.close();
  }
});

test('a Node template names the created nodes and gives them its labels, taints, resources and facts', async () => {
  const config = configFromDocuments(
    parseConfigText(
      '/etc/template.yaml',
      `apiVersion: v1
kind: Node
metadata:
  name: gpu
  labels: {pool: gpu}
  annotations: {team: ml}
spec:
  taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
status:
  capacity: {cpu: "96", memory: 512Gi, nvidia.com/gpu: "8"}
  nodeInfo: {architecture: arm64}
`,
    ),
  );
  const h = await start({ nodes: 2, config });
  try {
    const nodes = (await h.client.list(NODES, '')).items as J[];
    assert.deepEqual(
      nodes.map((n) => n.metadata.name),
      ['gpu-000000', 'gpu-000001'],
    );
    const n = nodes[1];
    assert.equal(n.metadata.labels.pool, 'gpu');
    assert.equal(n.metadata.labels['kubernetes.io/hostname'], 'gpu-000001');
    assert.equal(n.metadata.labels['kubernetes.io/arch'], 'arm64');
    assert.equal(n.metadata.annotations.team, 'ml');
    assert.equal(n.metadata.annotations[KWOK_NODE_ANNOTATION], 'fake');
    assert.deepEqual(n.spec.taints, [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }]);
    assert.deepEqual(n.status.capacity, { cpu: '96', 'ephemeral-storage': '1Ti', memory: '512Gi', 'nvidia.com/gpu': '8', pods: '110' });
    assert.equal(n.status.nodeInfo.architecture, 'arm64');
    assert.equal(n.status.conditions.find((c: J) => c.type === 'Ready').status, 'True');
  } finally {
    await h.close();
  }
});
