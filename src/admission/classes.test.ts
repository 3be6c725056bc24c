// Priority, RuntimeClass, the default classes, claim resizing and the small defaulting
// plugins, over the real registry.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import { group } from '../naming/index.js';
import { fixture, pod, R } from '../testing/admission.js';

const PC = { group: group('scheduling'), version: 'v1', resource: 'priorityclasses' };
const SC = { group: group('storage'), version: 'v1', resource: 'storageclasses' };
const IC = { group: group('networking'), version: 'v1', resource: 'ingressclasses' };
const ING = { group: group('networking'), version: 'v1', resource: 'ingresses' };
const RC = { group: group('node'), version: 'v1', resource: 'runtimeclasses' };

type J = Record<string, unknown>;
const spec = (o: KubeObject): J => o.spec as J;

function forbidden(message: string): (e: unknown) => boolean {
  return (e: unknown) => {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.code, 403);
    assert.equal(e.message, message);
    return true;
  };
}

test('Priority: no class is priority 0; the global default and named classes resolve; unknown classes and mismatches are refused', async () => {
  const f = await fixture();
  try {
    const plain = spec(await f.client.create(R.pods, 'team', pod('p0')));
    assert.equal(plain.priority, 0);
    assert.equal(plain.preemptionPolicy, 'PreemptLowerPriority');
    assert.equal(plain.priorityClassName, undefined);

    await f.client.create(PC, '', { metadata: { name: 'normal' }, value: 100, globalDefault: true });
    await f.client.create(PC, '', { metadata: { name: 'batch' }, value: 10, preemptionPolicy: 'Never' });
    await assert.rejects(
      f.client.create(PC, '', { metadata: { name: 'other' }, value: 5, globalDefault: true }),
      forbidden('priorityclasses.scheduling.orch.io "other" is forbidden: PriorityClass normal is already marked as default. Only one default can exist'),
    );
    const defaulted = spec(await f.client.create(R.pods, 'team', pod('p1')));
    assert.deepEqual([defaulted.priorityClassName, defaulted.priority, defaulted.preemptionPolicy], ['normal', 100, 'PreemptLowerPriority']);
    const named = spec(await f.client.create(R.pods, 'team', pod('p2', { priorityClassName: 'batch' })));
    assert.deepEqual([named.priority, named.preemptionPolicy], [10, 'Never']);

    await assert.rejects(f.client.create(R.pods, 'team', pod('p3', { priorityClassName: 'nope' })), forbidden('pods "p3" is forbidden: no PriorityClass with name nope was found'));
    await assert.rejects(
      f.client.create(R.pods, 'team', pod('p4', { priorityClassName: 'batch', priority: 7 })),
      forbidden('pods "p4" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 10 from the given PriorityClass name'),
    );
    await assert.rejects(
      f.client.create(R.pods, 'team', pod('p5', { priorityClassName: 'batch', preemptionPolicy: 'PreemptLowerPriority' })),
      forbidden('pods "p5" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name'),
    );
  } finally {
    await f.close();
  }
});

test('DefaultTolerationSeconds, TaintNodesByCondition and StorageObjectInUseProtection fill their defaults on create', async () => {
  const f = await fixture();
  try {
    const tolerations = spec(await f.client.create(R.pods, 'team', pod('t'))).tolerations;
    assert.deepEqual(tolerations, [
      { key: 'node.orch.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.orch.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
    // A toleration of every NoExecute taint already covers both.
    const covered = spec(await f.client.create(R.pods, 'team', pod('u', { tolerations: [{ operator: 'Exists', effect: 'NoExecute' }] }))).tolerations;
    assert.deepEqual(covered, [{ operator: 'Exists', effect: 'NoExecute' }]);

    const node = await f.client.create(R.nodes, '', { metadata: { name: 'n1' } });
    assert.deepEqual(spec(node).taints, [{ key: 'node.orch.io/not-ready', effect: 'NoSchedule' }]);

    const claim = await f.client.create(R.pvcs, 'team', { metadata: { name: 'c' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    assert.deepEqual(claim.metadata?.finalizers, ['orch.io/pvc-protection']);
    const volume = await f.client.create(R.pvs, '', { metadata: { name: 'v' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/v' } } });
    assert.deepEqual(volume.metadata?.finalizers, ['orch.io/pv-protection']);
  } finally {
    await f.close();
  }
});

test('DefaultStorageClass fills the only default; several defaults refuse a claim without a class; an explicit class, even empty, stays', async () => {
  const f = await fixture();
  try {
    const claim = (name: string, extra: J = {}): KubeObject => ({ metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...extra } });
    assert.equal(spec(await f.client.create(R.pvcs, 'team', claim('none'))).storageClassName, undefined);
    const isDefault = { 'storageclass.orch.io/is-default-class': 'true' };
    await f.client.create(SC, '', { metadata: { name: 'old', annotations: isDefault }, provisioner: 'x' });
    await f.client.create(SC, '', { metadata: { name: 'plain' }, provisioner: 'x' });
    assert.equal(spec(await f.client.create(R.pvcs, 'team', claim('a'))).storageClassName, 'old');
    // The beta annotation counts as well.
    await f.client.create(SC, '', { metadata: { name: 'new', annotations: { 'storageclass.beta.orch.io/is-default-class': 'true' } }, provisioner: 'x' });
    await assert.rejects(
      f.client.create(R.pvcs, 'team', claim('b')),
      forbidden('persistentvolumeclaims "b" is forbidden: Internal error occurred: 2 default StorageClasses were found'),
    );
    await assert.rejects(f.client.get(R.pvcs, 'team', 'b'), (e: unknown) => e instanceof ApiError && e.code === 404);
    assert.equal(spec(await f.client.create(R.pvcs, 'team', claim('c', { storageClassName: '' }))).storageClassName, '');
    assert.equal(spec(await f.client.create(R.pvcs, 'team', claim('d', { storageClassName: 'fast' }))).storageClassName, 'fast');
  } finally {
    await f.close();
  }
});

test('DefaultIngressClass fills the only default class and refuses when there are several', async () => {
  const f = await fixture();
  try {
    const ingress = (name: string): KubeObject => ({ metadata: { name }, spec: { defaultBackend: { service: { name: 's', port: { number: 80 } } } } });
    const isDefault = { 'ingressclass.orch.io/is-default-class': 'true' };
    await f.client.create(IC, '', { metadata: { name: 'nginx', annotations: isDefault }, spec: { controller: 'example.com/nginx' } });
    assert.equal(spec(await f.client.create(ING, 'team', ingress('a'))).ingressClassName, 'nginx');
    await f.client.create(IC, '', { metadata: { name: 'other', annotations: isDefault }, spec: { controller: 'example.com/other' } });
    await assert.rejects(f.client.create(ING, 'team', ingress('b')), forbidden('ingresses.networking.orch.io is forbidden: 2 default IngressClasses were found, only 1 allowed'));
  } finally {
    await f.close();
  }
});

test('RuntimeClass: unknown classes are refused; overhead and scheduling come from the class', async () => {
  const f = await fixture();
  try {
    await assert.rejects(f.client.create(R.pods, 'team', pod('x', { runtimeClassName: 'gvisor' })), forbidden('pods "x" is forbidden: pod rejected: RuntimeClass "gvisor" not found'));
    await f.client.create(RC, '', {
      metadata: { name: 'gvisor' },
      handler: 'runsc',
      overhead: { podFixed: { cpu: '250m', memory: '64Mi' } },
      scheduling: { nodeSelector: { sandbox: 'yes' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] },
    });
    const s = spec(await f.client.create(R.pods, 'team', pod('ok', { runtimeClassName: 'gvisor' })));
    assert.deepEqual(s.overhead, { cpu: '250m', memory: '64Mi' });
    assert.deepEqual(s.nodeSelector, { sandbox: 'yes' });
    assert.ok((s.tolerations as J[]).some((t) => t.key === 'sandbox'));
    await assert.rejects(
      f.client.create(R.pods, 'team', pod('bad', { runtimeClassName: 'gvisor', overhead: { cpu: '1' } })),
      forbidden("pods \"bad\" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"),
    );
    await assert.rejects(
      f.client.create(R.pods, 'team', pod('sel', { runtimeClassName: 'gvisor', nodeSelector: { sandbox: 'no' } })),
      forbidden('pods "sel" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = yes; pod.spec.nodeSelector[sandbox] = no'),
    );
    await assert.rejects(
      f.client.create(R.pods, 'team', pod('plain', { overhead: { cpu: '1' } })),
      forbidden('pods "plain" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead'),
    );
  } finally {
    await f.close();
  }
});

test('PersistentVolumeClaimResize: only bound claims of an expandable class grow', async () => {
  const f = await fixture();
  try {
    await f.client.create(SC, '', { metadata: { name: 'fixed' }, provisioner: 'x' });
    await f.client.create(SC, '', { metadata: { name: 'elastic' }, provisioner: 'x', allowVolumeExpansion: true });
    const grow = async (name: string, className: string): Promise<KubeObject> => {
      let claim = await f.client.create(R.pvcs, 'team', { metadata: { name }, spec: { storageClassName: className, accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
      claim = await f.plain.update(R.pvcs, 'team', { ...claim, status: { phase: 'Bound' } }, 'status');
      return f.client.update(R.pvcs, 'team', { ...claim, spec: { ...spec(claim), resources: { requests: { storage: '2Gi' } } } });
    };
    await assert.rejects(
      grow('fixed', 'fixed'),
      forbidden('persistentvolumeclaims "fixed" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize'),
    );
    const grown = await grow('elastic', 'elastic');
    assert.deepEqual((spec(grown).resources as J).requests, { storage: '2Gi' });
  } finally {
    await f.close();
  }
});
