// The persistent volume binder over the real registry (memory storage) with a FakeClock, in
// both naming flavors; and the choice of a volume as a pure function.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinResourceDefinitions } from '../../apis/definitions.js';
import { FakeClock } from '../../apimachinery/clock.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { LoopbackClient } from '../../server/loopback.js';
import { memoryTable } from '../../testing/memory-table.js';
import { eventually } from '../../testing/wait.js';
import { settleControllers, testControllerContext, type TestControllerContext } from '../../testing/controllers.js';
import { setFlavor } from '../../naming/index.js';
import type { RunningController } from '../types.js';
import {
  bindCompletedAnnotation,
  boundByControllerAnnotation,
  findBestMatch,
  persistentVolumeBinderDescriptor,
  PVCS,
  PVS,
  selectedNodeAnnotation,
  storageClassesResource,
  storageProvisionerAnnotations,
  volumeMismatch,
} from './index.js';

const NS: GroupVersionResource = { group: '', version: 'v1', resource: 'namespaces' };
const NODES: GroupVersionResource = { group: '', version: 'v1', resource: 'nodes' };

function pv(name: string, size: string, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, ...meta },
    spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/data/${name}` }, ...extra },
  };
}

function pvc(name: string, size: string, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'team', ...meta },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, storageClassName: '', ...extra },
  };
}

describe('findBestMatch', () => {
  const available = (o: KubeObject): KubeObject => ({ ...o, status: { phase: 'Available' } });
  const claim: KubeObject = { ...pvc('c', '3Gi'), metadata: { name: 'c', namespace: 'team', uid: 'u1' } };

  it('takes the smallest volume that is large enough', () => {
    const vols = [available(pv('big', '10Gi')), available(pv('small', '1Gi')), available(pv('fit', '5Gi'))];
    assert.equal(findBestMatch(claim, vols, { delayBinding: false })?.metadata?.name, 'fit');
  });

  it('prefers fewer access modes to a smaller size; skips other classes, modes, labels and claimed volumes', () => {
    const vols = [
      available(pv('many-modes', '4Gi', { accessModes: ['ReadWriteOnce', 'ReadOnlyMany'] })),
      available(pv('one-mode', '8Gi')),
      available(pv('classed', '3Gi', { storageClassName: 'fast' })),
      available(pv('block', '3Gi', { volumeMode: 'Block' })),
      available(pv('claimed', '3Gi', { claimRef: { namespace: 'team', name: 'other', uid: 'u2' } })),
    ];
    assert.equal(findBestMatch(claim, vols, { delayBinding: false })?.metadata?.name, 'one-mode');
    const selecting = { ...claim, spec: { ...(claim.spec as object), selector: { matchLabels: { tier: 'gold' } } } };
    assert.equal(findBestMatch(selecting, vols, { delayBinding: false }), undefined);
    const gold = available(pv('gold', '9Gi', {}, { labels: { tier: 'gold' } }));
    assert.equal(findBestMatch(selecting, [...vols, gold], { delayBinding: false })?.metadata?.name, 'gold');
  });

  it('a volume pre-bound to the claim wins, even when not Available; delayed binding waits for a node', () => {
    const reserved = pv('reserved', '20Gi', { claimRef: { namespace: 'team', name: 'c' } });
    assert.equal(findBestMatch(claim, [available(pv('fit', '5Gi')), reserved], { delayBinding: false })?.metadata?.name, 'reserved');
    assert.equal(findBestMatch(claim, [available(pv('fit', '5Gi'))], { delayBinding: true }), undefined);
    const zoned = available(
      pv('zoned', '5Gi', { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } } }),
    );
    const nodeIn = (zone: string): KubeObject => ({ metadata: { name: `n-${zone}`, labels: { zone } } });
    assert.equal(findBestMatch(claim, [zoned], { delayBinding: true, node: nodeIn('a') })?.metadata?.name, 'zoned');
    assert.equal(findBestMatch(claim, [zoned], { delayBinding: true, node: nodeIn('b') }), undefined);
  });
});

describe('findBestMatch on malformed objects', () => {
  it('never throws, and a malformed side matches nothing', () => {
    const available = (o: KubeObject): KubeObject => ({ ...o, status: { phase: 'Available' } });
    const claim = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'c', namespace: 'team', uid: 'u' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec } });
    const good = available(pv('good', '4Gi'));
    const hostile: KubeObject[] = [
      available(pv('modes-string', '5Gi', { accessModes: 'ReadWriteOnce' })),
      available(pv('modes-number', '5Gi', { accessModes: 5 })),
      available(pv('size-garbage', 'lots')),
      available(pv('size-object', '5Gi', { capacity: { storage: { __proto__: null } } })),
      available(pv('affinity-string', '5Gi', { nodeAffinity: { required: { nodeSelectorTerms: 'x' } } })),
      available(pv('claimref-string', '5Gi', { claimRef: 'x' })),
      { metadata: { name: 'no-spec' }, status: { phase: 'Available' } },
      available(JSON.parse('{"metadata":{"name":"proto","labels":{"__proto__":{"tier":"gold"}}},"spec":{"capacity":{"storage":"5Gi"},"accessModes":["ReadWriteOnce"]}}') as KubeObject),
    ];
    assert.equal(findBestMatch(claim({}), [...hostile, good], { delayBinding: false })?.metadata?.name, 'good');
    assert.equal(findBestMatch(claim({ selector: { matchExpressions: [{ key: 'tier', operator: 'Explode' }] } }), [good], { delayBinding: false }), undefined);
    assert.equal(findBestMatch(claim({ selector: { matchLabels: { tier: 'gold' } } }), hostile, { delayBinding: false }), undefined, 'no label from __proto__');
    assert.equal(findBestMatch(claim({ resources: { requests: { storage: '1 Gi' } } }), [good], { delayBinding: false }), undefined);
    assert.equal(findBestMatch(claim({ accessModes: 'ReadWriteOnce' }), [good], { delayBinding: false })?.metadata?.name, 'good', 'no modes asked, any volume');
    assert.equal(volumeMismatch(claim({}), { metadata: { name: 'x' } }), 'requested PV is too small');
  });
});

for (const flavor of ['orch', 'kubernetes'] as const) {
  describe(`persistentvolume-binder (${flavor} flavor)`, () => {
    let client: LoopbackClient;
    let ctx: TestControllerContext;
    let running: RunningController;
    let close: () => Promise<void>;
    let clock: FakeClock;
    const settle = (): Promise<void> =>
      settleControllers(client, [PVS, PVCS].map((r) => ctx.informers.informerFor(r)), () => running.idle?.() ?? true);
    const reasons = (name: string): string[] => ctx.events.events.filter((e) => e.regarding.metadata?.name === name).map((e) => e.reason);
    const notes = (name: string): string[] => ctx.events.events.filter((e) => e.regarding.metadata?.name === name).map((e) => e.note);
    const phase = async (r: GroupVersionResource, ns: string, name: string): Promise<string | undefined> =>
      ((await client.get(r, ns, name)).status as { phase?: string } | undefined)?.phase;

    before(async () => {
      setFlavor(flavor);
      const sc = storageClassesResource();
      const defs = builtinResourceDefinitions({ runtimeConfig: '' }).filter(
        (d) =>
          (d.group === '' && d.version === 'v1' && ['namespaces', 'nodes', 'persistentvolumeclaims', 'persistentvolumes'].includes(d.resource)) ||
          (d.group === sc.group && d.version === 'v1' && d.resource === 'storageclasses'),
      );
      clock = new FakeClock(Date.UTC(2024, 0, 1));
      const mt = memoryTable(defs, { now: () => clock.now() });
      close = mt.close;
      client = new LoopbackClient(mt.table, { username: 'admin', groups: ['system:masters'] });
      ctx = testControllerContext(client, { clock });
      ctx.options.pvClaimBinderSyncPeriodMs = 5_000;
      running = await persistentVolumeBinderDescriptor.start(ctx);
      ctx.informers.start();
      await ctx.informers.waitForSync();
      await client.create(NS, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
    });
    after(async () => {
      await running.stop();
      await ctx.informers.stop();
      await close();
      setFlavor('orch');
    });

    it('binds a claim to the smallest fitting volume, both sides annotated and Bound', async () => {
      await client.create(PVS, '', pv('pv-10', '10Gi'));
      await client.create(PVS, '', pv('pv-5', '5Gi', { persistentVolumeReclaimPolicy: 'Retain' }));
      await client.create(PVS, '', pv('pv-1', '1Gi'));
      const created = await client.create(PVCS, 'team', pvc('data', '3Gi'));
      await eventually(async () => ((await phase(PVCS, 'team', 'data')) === 'Bound' ? true : undefined), 'the claim Bound');
      await settle();
      const claim = await client.get(PVCS, 'team', 'data');
      assert.equal((claim.spec as { volumeName?: string }).volumeName, 'pv-5');
      assert.equal(claim.metadata?.annotations?.[bindCompletedAnnotation()], 'yes');
      assert.equal(bindCompletedAnnotation(), flavor === 'kubernetes' ? 'pv.kubernetes.io/bind-completed' : 'pv.orch.io/bind-completed');
      assert.equal(claim.metadata?.annotations?.[boundByControllerAnnotation()], 'yes');
      assert.deepEqual(claim.status, { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '5Gi' } });
      const volume = await client.get(PVS, '', 'pv-5');
      assert.equal(volume.metadata?.annotations?.[boundByControllerAnnotation()], 'yes');
      const ref = (volume.spec as { claimRef?: Record<string, string> }).claimRef;
      assert.deepEqual([ref?.kind, ref?.namespace, ref?.name, ref?.uid], ['PersistentVolumeClaim', 'team', 'data', created.metadata?.uid]);
      assert.equal((volume.status as { phase?: string }).phase, 'Bound');
      assert.equal(await phase(PVS, '', 'pv-10'), 'Available');
      assert.deepEqual(ctx.errors.filter((e) => !String(e).includes('modified')), []);
    });

    it('a claim with no volume says so and is bound once a volume comes', async () => {
      await client.create(PVCS, 'team', pvc('late', '50Gi'));
      await eventually(() => (reasons('late').includes('FailedBinding') ? true : undefined), 'FailedBinding');
      assert.ok(notes('late').includes('no persistent volumes available for this claim and no storage class is set'));
      assert.equal(await phase(PVCS, 'team', 'late'), 'Pending');
      // Every claim is looked at again each sync period (here 5 s): the claim says so again.
      await settle();
      const before = reasons('late').filter((r) => r === 'FailedBinding').length;
      clock.step(5_000);
      await eventually(() => (reasons('late').filter((r) => r === 'FailedBinding').length > before ? true : undefined), 'FailedBinding again after the period');
      await client.create(PVS, '', pv('pv-50', '50Gi'));
      await eventually(async () => ((await phase(PVCS, 'team', 'late')) === 'Bound' ? true : undefined), 'bound to the new volume');
    });

    it('a released Retain volume stays Released; a Delete volume goes with its claim', async () => {
      await client.delete(PVCS, 'team', 'data');
      await eventually(async () => ((await phase(PVS, '', 'pv-5')) === 'Released' ? true : undefined), 'pv-5 Released');
      await settle();
      assert.equal(await phase(PVS, '', 'pv-5'), 'Released');
      // Released keeps its claimRef: no new claim may take it.
      await client.create(PVCS, 'team', pvc('again', '5Gi'));
      await eventually(async () => ((await phase(PVCS, 'team', 'again')) === 'Bound' ? true : undefined), 'again Bound');
      assert.equal(((await client.get(PVCS, 'team', 'again')).spec as { volumeName?: string }).volumeName, 'pv-10');

      await client.patch(PVS, '', 'pv-50', { spec: { persistentVolumeReclaimPolicy: 'Delete' } });
      await client.delete(PVCS, 'team', 'late');
      await eventually(async () => ((await client.list(PVS, '')).items.some((v) => v.metadata?.name === 'pv-50') ? undefined : true), 'pv-50 deleted');
    });

    it('pre-binding: spec.volumeName binds to that volume or says why not; claimRef reserves a volume', async () => {
      await client.create(PVS, '', pv('named', '2Gi'));
      await client.create(PVCS, 'team', pvc('too-big', '3Gi', { volumeName: 'named' }));
      await eventually(() => (reasons('too-big').includes('VolumeMismatch') ? true : undefined), 'VolumeMismatch');
      assert.ok(notes('too-big').includes('Cannot bind to requested volume "named": requested PV is too small'));
      await client.create(PVCS, 'team', pvc('named-claim', '1Gi', { volumeName: 'named' }));
      await eventually(async () => ((await phase(PVCS, 'team', 'named-claim')) === 'Bound' ? true : undefined), 'bound by name');
      const claim = await client.get(PVCS, 'team', 'named-claim');
      assert.equal(claim.metadata?.annotations?.[boundByControllerAnnotation()], undefined, 'the user chose the volume');

      await client.create(PVS, '', pv('kept', '100Gi', { claimRef: { namespace: 'team', name: 'wanted' } }));
      await client.create(PVS, '', pv('small-free', '1Gi'));
      await client.create(PVCS, 'team', pvc('wanted', '1Gi'));
      await eventually(async () => ((await phase(PVCS, 'team', 'wanted')) === 'Bound' ? true : undefined), 'wanted Bound');
      assert.equal(((await client.get(PVCS, 'team', 'wanted')).spec as { volumeName?: string }).volumeName, 'kept');
      assert.equal((await client.get(PVS, '', 'kept')).metadata?.annotations?.[boundByControllerAnnotation()], undefined);
    });

    it('WaitForFirstConsumer: Pending until the scheduler selects a node, then bound to a volume that node reaches', async () => {
      const sc = storageClassesResource();
      await client.create(sc, '', { apiVersion: `${sc.group}/v1`, kind: 'StorageClass', metadata: { name: 'local' }, provisioner: 'example.com/none', volumeBindingMode: 'WaitForFirstConsumer' });
      const affinity = (zone: string): Record<string, unknown> => ({ nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: [zone] }] }] } } });
      await client.create(PVS, '', pv('local-a', '1Gi', { storageClassName: 'local', ...affinity('a') }));
      await client.create(PVS, '', pv('local-b', '2Gi', { storageClassName: 'local', ...affinity('b') }));
      await client.create(NODES, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-b', labels: { zone: 'b' } } });
      await client.create(PVCS, 'team', pvc('delayed', '1Gi', { storageClassName: 'local' }));
      await eventually(() => (reasons('delayed').includes('WaitForFirstConsumer') ? true : undefined), 'WaitForFirstConsumer');
      assert.ok(notes('delayed').includes('waiting for first consumer to be created before binding'));
      await settle();
      assert.equal(await phase(PVCS, 'team', 'delayed'), 'Pending');
      await client.patch(PVCS, 'team', 'delayed', { metadata: { annotations: { [selectedNodeAnnotation()]: 'node-b' } } });
      await eventually(async () => ((await phase(PVCS, 'team', 'delayed')) === 'Bound' ? true : undefined), 'delayed Bound');
      assert.equal(((await client.get(PVCS, 'team', 'delayed')).spec as { volumeName?: string }).volumeName, 'local-b');
    });

    it('a class with an external provisioner waits for it; a bound claim whose volume goes is Lost', async () => {
      const sc = storageClassesResource();
      await client.create(sc, '', { apiVersion: `${sc.group}/v1`, kind: 'StorageClass', metadata: { name: 'ext' }, provisioner: 'example.com/csi' });
      await client.create(PVCS, 'team', pvc('ext-claim', '1Gi', { storageClassName: 'ext' }));
      await eventually(() => (reasons('ext-claim').includes('ExternalProvisioning') ? true : undefined), 'ExternalProvisioning');
      const waiting = await eventually(async () => {
        const c = await client.get(PVCS, 'team', 'ext-claim');
        return c.metadata?.annotations?.[storageProvisionerAnnotations()[0]] ? c : undefined;
      }, 'the provisioner named on the claim');
      assert.equal(waiting.metadata?.annotations?.[flavor === 'kubernetes' ? 'volume.kubernetes.io/storage-provisioner' : 'volume.orch.io/storage-provisioner'], 'example.com/csi');
      assert.equal(waiting.metadata?.annotations?.[storageProvisionerAnnotations()[1]], 'example.com/csi');
      assert.equal(((await client.get(PVCS, 'team', 'ext-claim')).status as { phase?: string }).phase, 'Pending');
      await client.create(PVCS, 'team', pvc('no-class', '1Gi', { storageClassName: 'missing' }));
      await eventually(() => (reasons('no-class').includes('ProvisioningFailed') ? true : undefined), 'ProvisioningFailed');
      assert.ok(notes('no-class').includes(`storageclass.${sc.group} "missing" not found`));

      // The protection finalizer is not in play here (no admission): the volume goes at once.
      await client.delete(PVS, '', 'kept');
      await eventually(async () => ((await phase(PVCS, 'team', 'wanted')) === 'Lost' ? true : undefined), 'wanted Lost');
      assert.ok(reasons('wanted').includes('ClaimLost'));
    });
  });
}
