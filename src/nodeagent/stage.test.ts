// The stage engine, pure: an object, the stages and a FakeClock's time in; the stage to play,
// when, and what it changes out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../apimachinery/clock.js';
import type { KubeObject } from '../apimachinery/types.js';
import { setFlavor } from '../naming/index.js';
import { configFromDocuments, parseConfigText } from './config.js';
import { defaultNodeStages, defaultPodStages, POD_COMPLETE_DELAY_MS, POD_COMPLETE_JITTER_MS } from './defaults.js';
import { chooseStage, editFinalizers, parseGoDuration, playStage, stageDelayMs, type Stage } from './stage.js';
import type { TemplateEnv } from './template.js';

setFlavor('kubernetes');

// Statuses are read loosely in assertions.
type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

function envAt(clock: FakeClock): TemplateEnv {
  return {
    now: () => clock.now(),
    startTime: () => new Date(0),
    version: () => 'v1.27.16',
    nodeConditions: () => [],
    nodeIP: () => '192.0.2.7',
    nodeName: () => 'node-000000',
    nodePort: () => 0,
    podIP: () => '10.0.0.1',
    nodeIPWith: () => '192.0.2.7',
    nodeIPsWith: () => ['192.0.2.7'],
    podIPWith: (_n, host) => (host ? '192.0.2.7' : '10.244.0.5'),
    podIPsWith: (_n, host) => (host ? ['192.0.2.7'] : ['10.244.0.5']),
  };
}

function pendingPod(extra: Partial<KubeObject> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'uid-1', resourceVersion: '5' },
    spec: {
      nodeName: 'node-000000',
      initContainers: [{ name: 'init', image: 'busybox:1.36' }],
      containers: [
        { name: 'app', image: 'registry.local:5000/team/app:v2' },
        { name: 'side', image: 'nginx' },
      ],
    },
    status: { phase: 'Pending', qosClass: 'BestEffort' },
    ...extra,
  };
}

const never = (): number => 0;

test('a pending pod on a simulated node: pod-ready, at once, with every status field the kubelet writes', () => {
  const clock = new FakeClock(Date.UTC(2024, 0, 1, 0, 0, 30));
  const stages = defaultPodStages();
  const pod = pendingPod();
  const stage = chooseStage(pod, stages, never);
  assert.equal(stage?.name, 'pod-ready');
  assert.equal(stageDelayMs(stage, pod, clock.now().getTime(), never), 0);
  const out = playStage(stage, pod, envAt(clock));
  assert.equal(out.delete, false);
  const status = out.status as J;
  const now = '2024-01-01T00:00:30Z';
  assert.equal(status.phase, 'Running');
  assert.equal(status.podIP, '10.244.0.5');
  assert.deepEqual(status.podIPs, [{ ip: '10.244.0.5' }]);
  assert.equal(status.hostIP, '192.0.2.7');
  assert.equal(status.startTime, now);
  assert.equal(status.qosClass, 'BestEffort', 'what the pod had is kept');
  assert.deepEqual(
    status.conditions.map((c: J) => [c.type, c.status, c.lastTransitionTime]),
    ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((t) => [t, 'True', now]),
  );
  assert.equal(status.containerStatuses.length, 2);
  for (const [i, c] of (status.containerStatuses as J[]).entries()) {
    assert.equal(c.name, ['app', 'side'][i]);
    assert.equal(c.image, ['registry.local:5000/team/app:v2', 'nginx'][i]);
    assert.match(c.imageID, i === 0 ? /^registry\.local:5000\/team\/app@sha256:[0-9a-f]{64}$/ : /^nginx@sha256:[0-9a-f]{64}$/);
    assert.match(c.containerID, /^kwok:\/\/[0-9a-f]{64}$/);
    assert.equal(c.ready, true);
    assert.equal(c.started, true);
    assert.equal(c.restartCount, 0);
    assert.deepEqual(c.state, { running: { startedAt: now } });
  }
  assert.notEqual(status.containerStatuses[0].containerID, status.containerStatuses[1].containerID);
  const init = status.initContainerStatuses[0];
  assert.equal(init.name, 'init');
  assert.equal(init.ready, true);
  assert.deepEqual({ ...init.state.terminated, containerID: undefined }, { exitCode: 0, reason: 'Completed', startedAt: now, finishedAt: now, containerID: undefined });

  // Once Running and ready, no default stage matches a pod that no Job owns.
  const running = { ...pod, status };
  assert.equal(chooseStage(running, stages, never), undefined);
});

test('hostNetwork pods take the node address; readiness gates are met; PodScheduled set earlier keeps its time', () => {
  const clock = new FakeClock(Date.UTC(2024, 0, 1, 0, 1));
  const pod = pendingPod({
    spec: { nodeName: 'node-000000', hostNetwork: true, readinessGates: [{ conditionType: 'example.com/gate' }], containers: [{ name: 'c', image: 'x' }] },
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' }] },
  });
  const status = playStage(defaultPodStages()[0]!, pod, envAt(clock)).status as J;
  assert.equal(status.podIP, '192.0.2.7');
  const byType = new Map((status.conditions as J[]).map((c) => [c.type, c]));
  assert.equal(byType.get('PodScheduled').lastTransitionTime, '2024-01-01T00:00:00Z');
  assert.equal(byType.get('example.com/gate').status, 'True');
  assert.equal(status.conditions[0].type, 'PodScheduled', 'existing conditions keep their place');
});

test('a running pod whose Ready condition someone else set False while its containers stayed ready is made ready again, as the kubelet does', () => {
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const stages = defaultPodStages();
  const ready = playStage(stages[0]!, pendingPod(), envAt(clock)).status as J;
  // The node lifecycle controller's MarkPodsNotReady: the Ready condition only.
  const marked = { ...ready, conditions: (ready.conditions as J[]).map((c) => (c.type === 'Ready' ? { ...c, status: 'False', lastTransitionTime: '2024-01-01T00:00:05Z' } : c)) };
  const pod = pendingPod({ status: marked });
  const stage = chooseStage(pod, stages, never)!;
  assert.equal(stage.name, 'pod-ready-again');
  assert.equal(stageDelayMs(stage, pod, clock.now().getTime(), never), 0);
  clock.step(10_000);
  const again = playStage(stage, pod, envAt(clock)).status as J;
  for (const type of ['Ready', 'ContainersReady']) {
    const c = (again.conditions as J[]).find((x) => x.type === type);
    assert.equal(c.status, 'True', type);
  }
  assert.equal(chooseStage({ ...pod, status: { ...marked, conditions: again.conditions } }, stages, never), undefined, 'a ready pod rests');
  // A pod whose containers are not ready (a user's stage made them so) stays not ready.
  const notReadyContainers = { ...marked, containerStatuses: (marked.containerStatuses as J[]).map((c) => ({ ...c, ready: false })) };
  assert.equal(chooseStage(pendingPod({ status: notReadyContainers }), stages, never), undefined);
});

test("a Job's running pod completes after KWOK's pod-complete delay; a pod being deleted is deleted", () => {
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const stages = defaultPodStages();
  const ready = playStage(stages[0]!, pendingPod(), envAt(clock)).status!;
  const running = pendingPod({ status: ready });
  running.metadata!.ownerReferences = [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: 'j1', controller: true }];
  const complete = chooseStage(running, stages, never)!;
  assert.equal(complete.name, 'pod-complete');
  assert.equal(stageDelayMs(complete, running, clock.now().getTime(), () => 0), POD_COMPLETE_DELAY_MS);
  assert.equal(stageDelayMs(complete, running, clock.now().getTime(), () => 0.999999), POD_COMPLETE_JITTER_MS - 1);
  clock.step(3000);
  const done = playStage(complete, running, envAt(clock)).status as J;
  assert.equal(done.phase, 'Succeeded');
  for (const c of done.containerStatuses as J[]) {
    assert.equal(c.state.terminated.exitCode, 0);
    assert.equal(c.state.terminated.reason, 'Completed');
    assert.equal(c.state.terminated.startedAt, '2024-01-01T00:00:00Z', 'the run started when the container did');
    assert.equal(c.state.terminated.finishedAt, '2024-01-01T00:00:03Z');
    assert.equal(c.ready, false);
  }
  assert.equal(done.containerStatuses[0].containerID, (ready as J).containerStatuses[0].containerID, 'the same container ended');
  const ready2 = (done.conditions as J[]).find((c) => c.type === 'Ready');
  assert.deepEqual([ready2.status, ready2.reason], ['False', 'PodCompleted']);
  assert.equal(chooseStage({ ...running, status: done }, stages, never), undefined, 'a finished pod rests');

  const deleting = pendingPod();
  deleting.metadata!.deletionTimestamp = '2024-01-01T00:00:00Z';
  const del = chooseStage(deleting, stages, never)!;
  assert.equal(del.name, 'pod-delete');
  assert.deepEqual(playStage(del, deleting, envAt(clock)), { stage: 'pod-delete', delete: true });
});

test('node stages: initialize a node that is not Ready, then heartbeat every five minutes (spread)', () => {
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const stages = defaultNodeStages('v1.27.16');
  const node: KubeObject = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'node-000000', creationTimestamp: '2023-12-31T00:00:00Z' },
    status: { capacity: { cpu: '4', 'nvidia.com/gpu': '1' }, nodeInfo: { architecture: 'arm64', kubeletVersion: '' } },
  };
  const init = chooseStage(node, stages, never)!;
  assert.equal(init.name, 'node-initialize');
  const status = playStage(init, node, envAt(clock)).status as J;
  assert.equal(status.phase, 'Running');
  assert.deepEqual(
    (status.conditions as J[]).map((c) => [c.type, c.status, c.reason]),
    [
      ['Ready', 'True', 'KubeletReady'],
      ['MemoryPressure', 'False', 'KubeletHasSufficientMemory'],
      ['DiskPressure', 'False', 'KubeletHasNoDiskPressure'],
      ['PIDPressure', 'False', 'KubeletHasSufficientPID'],
      ['NetworkUnavailable', 'False', 'RouteCreated'],
    ],
  );
  assert.deepEqual(status.capacity, { cpu: '4', 'nvidia.com/gpu': '1', memory: '256Gi', pods: '110', 'ephemeral-storage': '1Ti' }, "the creator's values kept, the rest filled");
  assert.deepEqual(status.allocatable, status.capacity);
  assert.equal(status.nodeInfo.architecture, 'arm64');
  assert.equal(status.nodeInfo.kubeletVersion, 'v1.27.16');
  assert.equal(status.nodeInfo.operatingSystem, 'linux');
  assert.deepEqual(status.addresses, [
    { type: 'InternalIP', address: '192.0.2.7' },
    { type: 'Hostname', address: 'node-000000' },
  ]);

  const ready = { ...node, status };
  const beat = chooseStage(ready, stages, never)!;
  assert.equal(beat.name, 'node-heartbeat-with-lease');
  const delay = stageDelayMs(beat, ready, clock.now().getTime(), () => 0.5);
  assert.ok(delay >= 300_000 && delay < 330_000, String(delay));
  clock.step(delay);
  const beaten = playStage(beat, ready, envAt(clock)).status as J;
  const r = (beaten.conditions as J[]).find((c) => c.type === 'Ready');
  assert.equal(r.lastTransitionTime, '2024-01-01T00:00:00Z', 'no transition');
  assert.equal(r.lastHeartbeatTime, clock.now().toISOString().replace(/\.\d+Z$/, 'Z'));
});

const userStages = (yaml: string): Stage[] => configFromDocuments(parseConfigText('/cfg/stages.yaml', yaml)).stages;

test('delays: duration, jitter, and the *From expressions (a duration, or a time to wait for)', () => {
  const [s] = userStages(`
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: slow}
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector: {matchLabels: {app: slow}}
  delay:
    durationMilliseconds: 1000
    durationFrom: {expressionFrom: '.metadata.annotations["delay"]'}
    jitterDurationMilliseconds: 3000
    jitterDurationFrom: {expressionFrom: '.metadata.annotations["until"]'}
  next: {delete: true}
`);
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const now = clock.now().getTime();
  const pod = (annotations: Record<string, string>): KubeObject => ({ metadata: { name: 'p', labels: { app: 'slow' }, annotations } });
  assert.equal(stageDelayMs(s!, pod({}), now, () => 0), 1000);
  assert.equal(stageDelayMs(s!, pod({}), now, () => 0.5), 2000);
  assert.equal(stageDelayMs(s!, pod({ delay: '2m' }), now, () => 0.5), 3000, 'a jitter below the duration is the delay');
  assert.equal(stageDelayMs(s!, pod({ delay: '1500ms', until: '2024-01-01T00:00:10Z' }), now, () => 0), 1500);
  assert.equal(stageDelayMs(s!, pod({ delay: '20s', until: '2024-01-01T00:00:10Z' }), now, () => 0), 10_000, 'the jitter, shorter, wins');
  assert.equal(stageDelayMs(s!, pod({ delay: 'soon' }), now, () => 0), 1000, 'an unreadable value falls back');
  assert.equal(stageDelayMs(s!, pod({ until: '2023-01-01T00:00:00Z' }), now, () => 0), 0, 'never negative');
  assert.equal(parseGoDuration('1h2m3.5s'), 3_723_500);
  assert.equal(parseGoDuration('5'), undefined);
  assert.equal(parseGoDuration('0'), 0);
});

test('weights choose among matching stages; labels, annotations and expressions are ANDed', () => {
  const stages = userStages(`
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: heavy}
spec:
  resourceRef: {kind: Pod}
  selector: {matchAnnotations: {a: b}}
  weight: 3
  next: {delete: true}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: light}
spec:
  resourceRef: {kind: Pod}
  selector:
    matchAnnotations: {a: b}
    matchExpressions: [{key: .status.phase, operator: In, values: [Running]}]
  weightFrom: {expressionFrom: '.metadata.annotations["w"]'}
  weight: 1
  next: {delete: true}
`);
  const pod = (phase: string, w?: string): KubeObject => ({ metadata: { name: 'p', annotations: { a: 'b', ...(w ? { w } : {}) } }, status: { phase } });
  assert.equal(chooseStage(pod('Pending'), stages, () => 0.99)?.name, 'heavy', 'only one matches');
  assert.equal(chooseStage(pod('Running'), stages, () => 0.7)?.name, 'heavy');
  assert.equal(chooseStage(pod('Running'), stages, () => 0.8)?.name, 'light');
  assert.equal(chooseStage(pod('Running', '0'), stages, () => 0.99)?.name, 'heavy', 'weightFrom overrides');
  assert.equal(chooseStage({ metadata: { name: 'p' }, status: { phase: 'Running' } }, stages, () => 0), undefined);
});

test('finalizers: emptied or removed, then the added ones not already there', () => {
  assert.deepEqual(editFinalizers(['a', 'b'], { add: ['c', 'a'], remove: ['b'], empty: false }), ['a', 'c']);
  assert.deepEqual(editFinalizers(['a', 'b'], { add: ['c'], remove: [], empty: true }), ['c']);
  const [s] = userStages(`
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: release}
spec:
  resourceRef: {kind: Pod}
  selector: {matchExpressions: [{key: .metadata.deletionTimestamp, operator: Exists}]}
  next:
    finalizers: {remove: [{value: example.com/hold}]}
    event: {type: Normal, reason: Released, message: finalizer removed}
    delete: true
`);
  const clock = new FakeClock();
  const pod: KubeObject = { metadata: { name: 'p', finalizers: ['example.com/hold', 'other'], deletionTimestamp: 't' } };
  assert.deepEqual(playStage(s!, pod, envAt(clock)), {
    stage: 'release',
    delete: true,
    event: { type: 'Normal', reason: 'Released', message: 'finalizer removed' },
    finalizers: ['other'],
  });
});

test("a user stage's template makes a pod fail, merged into the status as a strategic merge patch", () => {
  const [fail] = userStages(`
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: pod-fail}
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchLabels: {fail: "true"}
    matchExpressions:
    - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
    - {key: .status.phase, operator: In, values: [Pending, Running]}
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $annotations := or .metadata.annotations dict }}
      {{ $code := or ( index $annotations "exit-code" ) 1 }}
      conditions:
      - type: Ready
        status: "False"
        reason: ContainersNotReady
        lastTransitionTime: {{ $now | Quote }}
      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: false
        restartCount: 0
        state:
          terminated:
            exitCode: {{ $code }}
            reason: Error
            finishedAt: {{ $now | Quote }}
      {{ end }}
      hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
      phase: Failed
`);
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const pod = pendingPod({
    metadata: { name: 'p', namespace: 'default', labels: { fail: 'true' }, annotations: { 'exit-code': '3' } },
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }] },
  });
  const status = playStage(fail!, pod, envAt(clock)).status as J;
  assert.equal(status.phase, 'Failed');
  assert.equal(status.hostIP, '192.0.2.7');
  assert.deepEqual((status.conditions as J[]).map((c) => c.type).sort(), ['PodScheduled', 'Ready'], 'conditions merge by type');
  assert.deepEqual(
    (status.containerStatuses as J[]).map((c) => [c.name, c.state.terminated.exitCode]),
    [
      ['app', 3],
      ['side', 3],
    ],
  );
  // A status that would not change is no write.
  assert.equal(playStage(fail!, { ...pod, status }, envAt(clock)).status, undefined);
});
