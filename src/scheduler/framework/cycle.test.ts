import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../apimachinery/types.js';
import { setFlavor } from '../../naming/index.js';
import { SchedulerCache } from '../cache/cache.js';
import { findPreemption, eligibleToPreempt } from '../plugins/defaultpreemption/preemption.js';
import { numFeasibleNodesToFind, scheduleCycle } from './cycle.js';
import { fitErrorMessage } from './fit-error.js';
import { PodInfo } from './pod-info.js';
import { defaultProfile } from './profile.js';

setFlavor('kubernetes');

function node(name: string, opts: { labels?: Record<string, string>; taints?: unknown[]; cpu?: string; memory?: string; pods?: string; unschedulable?: boolean } = {}): KubeObject {
  return {
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...opts.labels } },
    spec: { ...(opts.taints ? { taints: opts.taints } : {}), ...(opts.unschedulable ? { unschedulable: true } : {}) },
    status: { allocatable: { cpu: opts.cpu ?? '4', memory: opts.memory ?? '8Gi', pods: opts.pods ?? '110' } },
  };
}

function pod(name: string, spec: Record<string, unknown> = {}, extra: Partial<KubeObject> = {}): PodInfo {
  return new PodInfo({
    metadata: { name, namespace: 'default', uid: `uid-${name}`, ...(extra.metadata ?? {}) },
    spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
    ...(extra.status ? { status: extra.status } : {}),
  });
}

function cluster(...nodes: KubeObject[]): SchedulerCache {
  const c = new SchedulerCache();
  for (const n of nodes) c.setNode(n);
  return c;
}

const opts = () => ({ cursor: { next: 0 }, random: () => 0.99 });

test("the unschedulable message is kube-scheduler's, reasons counted and sorted, with preemption's account", () => {
  const c = cluster(
    node('a', { taints: [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }] }),
    node('b', { labels: { disk: 'hdd' } }),
    node('c', { labels: { disk: 'hdd' } }),
  );
  const p = pod('web', { nodeSelector: { disk: 'ssd' } });
  const r = scheduleCycle(defaultProfile(), p, c, opts());
  assert.ok('diagnosis' in r);
  const pre = findPreemption(defaultProfile(), r.state, p, c, r.diagnosis.filtered);
  assert.ok('message' in pre);
  r.diagnosis.postFilterMsg = `preemption: ${pre.message}`;
  assert.equal(
    fitErrorMessage(r.diagnosis),
    "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: infra}, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling..",
  );
});

test('filters: node name, cordon, taints tolerated, resources, host ports', () => {
  const profile = defaultProfile();
  const c = cluster(node('small', { cpu: '1' }), node('big', { cpu: '8' }), node('cordoned', { cpu: '64', unschedulable: true }));
  const heavy = pod('heavy', { containers: [{ name: 'c', resources: { requests: { cpu: '2' } } }] });
  const r = scheduleCycle(profile, heavy, c, opts());
  assert.ok('node' in r);
  assert.equal(r.node.name, 'big');

  const pinned = pod('pinned', { nodeName: 'small' });
  const filtered = scheduleCycle(profile, pinned, c, opts());
  assert.ok('node' in filtered && filtered.node.name === 'small');

  const tooBig = pod('huge', { containers: [{ name: 'c', resources: { requests: { cpu: '100', memory: '100Gi' } } }] });
  const r2 = scheduleCycle(profile, tooBig, c, opts());
  assert.ok('diagnosis' in r2);
  assert.equal(fitErrorMessage(r2.diagnosis), '0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu, 2 Insufficient memory.');

  const tolerant = pod('t', { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }], containers: [{ name: 'c', resources: { requests: { cpu: '32' } } }] });
  const r3 = scheduleCycle(profile, tolerant, c, opts());
  assert.ok('node' in r3 && r3.node.name === 'cordoned');

  const withPort = (n: string): PodInfo => pod(n, { containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: 8080 }] }] });
  const one = cluster(node('only'));
  one.addPod(new PodInfo({ ...withPort('first').pod, spec: { ...withPort('first').spec, nodeName: 'only' } }));
  const r4 = scheduleCycle(profile, withPort('second'), one, opts());
  assert.ok('diagnosis' in r4);
  assert.equal(fitErrorMessage(r4.diagnosis), "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports.");
});

test('scores: the emptier node wins; preferred affinity and PreferNoSchedule taints weigh in', () => {
  const profile = defaultProfile();
  const c = cluster(node('busy'), node('idle'));
  for (let i = 0; i < 3; i++) c.addPod(pod(`p${i}`, { nodeName: 'busy', containers: [{ name: 'c', resources: { requests: { cpu: '1', memory: '2Gi' } } }] }));
  const r = scheduleCycle(profile, pod('new'), c, opts());
  assert.ok('node' in r && r.node.name === 'idle');

  const preferring = pod('pref', {
    affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, preference: { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['busy'] }] } }] } },
  });
  const r2 = scheduleCycle(profile, preferring, c, opts());
  assert.ok('node' in r2 && r2.node.name === 'busy');

  const tainted = cluster(node('x', { taints: [{ key: 'k', effect: 'PreferNoSchedule' }] }), node('y'));
  const r3 = scheduleCycle(profile, pod('q'), tainted, opts());
  assert.ok('node' in r3 && r3.node.name === 'y');
});

test('pods of one controller spread over nodes (the default topology constraints)', () => {
  const c = cluster(node('n1'), node('n2'), node('n3'));
  const owner = { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs-uid', controller: true }] };
  const placed = new Map<string, number>();
  for (let i = 0; i < 9; i++) {
    const p = pod(`r${i}`, {}, { metadata: { name: `r${i}`, namespace: 'default', uid: `u${i}`, ...owner } });
    const r = scheduleCycle(defaultProfile(), p, c, { cursor: { next: 0 }, random: () => 0 });
    assert.ok('node' in r);
    c.assume(p, r.node.name);
    placed.set(r.node.name, (placed.get(r.node.name) ?? 0) + 1);
  }
  assert.deepEqual([...placed.values()], [3, 3, 3]);
});

test('required pod anti-affinity keeps replicas apart; required affinity follows its target', () => {
  const c = cluster(node('n1', { labels: { zone: 'a' } }), node('n2', { labels: { zone: 'b' } }));
  const anti = (name: string): PodInfo =>
    pod(name, { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'zone' }] } } }, { metadata: { name, namespace: 'default', labels: { app: 'db' } } });
  for (const n of ['db-0', 'db-1']) {
    const r = scheduleCycle(defaultProfile(), anti(n), c, opts());
    assert.ok('node' in r, n);
    c.assume(anti(n), r.node.name);
  }
  const third = scheduleCycle(defaultProfile(), anti('db-2'), c, opts());
  assert.ok('diagnosis' in third);
  assert.equal(fitErrorMessage(third.diagnosis), "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.");

  const follower = pod('cache', { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'zone' }] } } });
  const none = scheduleCycle(defaultProfile(), follower, c, opts());
  assert.ok('diagnosis' in none);
  assert.match(fitErrorMessage(none.diagnosis), /2 node\(s\) didn't match pod affinity rules/);
  c.assume(pod('web', { nodeName: 'n2' }, { metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } } }), 'n2');
  const r = scheduleCycle(defaultProfile(), follower, c, opts());
  assert.ok('node' in r && r.node.name === 'n2');
});

test('preemption picks the node whose victims cost least and keeps what it can', () => {
  const c = cluster(node('n1', { cpu: '2' }), node('n2', { cpu: '2' }));
  const cpu = (n: string, amount: string, priority: number, nodeName: string): PodInfo =>
    pod(n, { nodeName, priority, containers: [{ name: 'c', resources: { requests: { cpu: amount } } }] });
  c.addPod(cpu('low-a', '1', 10, 'n1'));
  c.addPod(cpu('low-b', '1', 20, 'n1'));
  c.addPod(cpu('mid', '2', 500, 'n2'));
  const urgent = pod('urgent', { priority: 1000, containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] });
  const r = scheduleCycle(defaultProfile(), urgent, c, opts());
  assert.ok('diagnosis' in r);
  assert.equal(eligibleToPreempt(urgent, c), undefined);
  const pre = findPreemption(defaultProfile(), r.state, urgent, c, r.diagnosis.filtered);
  assert.ok('candidate' in pre);
  assert.equal(pre.candidate.nodeName, 'n1');
  assert.deepEqual(pre.candidate.victims.map((v) => v.name), ['low-a'], 'the higher of the two low pods is reprieved');
  const never = pod('polite', { priority: 1000, preemptionPolicy: 'Never' });
  assert.equal(eligibleToPreempt(never, c), 'not eligible due to preemptionPolicy=Never.');
});

test('the share of nodes searched follows kube: all below 100, then adaptive, at least 100', () => {
  assert.equal(numFeasibleNodesToFind(50), 50);
  assert.equal(numFeasibleNodesToFind(1000), 420);
  assert.equal(numFeasibleNodesToFind(5000), 500);
  assert.equal(numFeasibleNodesToFind(150), 100);
});
