// The endpointslice controller over the real registry (memory storage), in both flavors, and
// its reconciler's plans.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../apimachinery/types.js';
import type { LoopbackClient } from '../../server/loopback.js';
import { startControllerHarness, type ControllerHarness } from '../../testing/controller-harness.js';
import { setFlavor, type Flavor } from '../../naming/index.js';
import { NODES, PODS, SERVICES } from '../endpoint/util.js';
import { endpointSliceControllerDescriptor, endpointSlicesResource, reconcileSlices, sliceLabels } from './index.js';

for (const flavor of ['kubernetes', 'orch'] as Flavor[]) {
  const long = flavor === 'kubernetes' ? 'kubernetes.io' : 'orch.io';
  const short = flavor === 'kubernetes' ? 'k8s.io' : 'orch.io';
  describe(`endpointslice controller (${flavor} flavor)`, () => {
    let client: LoopbackClient;
    let h: ControllerHarness;

    before(async () => {
      setFlavor(flavor);
      h = await startControllerHarness(endpointSliceControllerDescriptor, (d) => (d.group === '' && d.version === 'v1' && ['namespaces', 'pods', 'services', 'nodes'].includes(d.resource)) || (d.resource === 'endpointslices' && d.version === 'v1'), { maxEndpointsPerSlice: 3 });
      ({ client } = h);
      await client.create(NODES, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { [`topology.${long}/zone`]: 'zone-a' } } });
    });
    after(async () => {
      await h.stop();
      setFlavor('orch');
    });

    const settle = (): Promise<void> => h.settle();
    async function pod(name: string, labels: Record<string, string>, ip: string, ready: boolean): Promise<KubeObject> {
      const created = await client.create(PODS, 'default', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, labels },
        spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }] },
      });
      return setReady(created, ip, ready);
    }
    async function setReady(p: KubeObject, ip: string, ready: boolean): Promise<KubeObject> {
      p.status = { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: '2024-01-01T00:00:00Z' }] };
      return client.update(PODS, 'default', p, 'status');
    }
    const slicesOf = async (svc: string): Promise<KubeObject[]> =>
      (await client.list(endpointSlicesResource(), 'default')).items.filter((s) => s.metadata?.labels?.[`${long}/service-name`] === svc && s.addressType === 'IPv4');

    it('writes the pods as endpoints with their conditions, node, zone and ports, owned by the Service', async () => {
      await pod('a-1', { app: 'a' }, '10.1.0.1', true);
      await pod('a-2', { app: 'a' }, '10.1.0.2', false);
      const svc = await client.create(SERVICES, 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'a', labels: { team: 'x' } }, spec: { selector: { app: 'a' }, ports: [{ name: 'web', port: 80, targetPort: 'http' }] } });
      await settle();
      const slices = await slicesOf('a');
      assert.equal(slices.length, 1);
      const s = slices[0]!;
      assert.match(s.metadata?.name ?? '', /^a-[a-z0-9]{5}$/);
      assert.equal(s.addressType, 'IPv4');
      // No cluster IP is allocated in this registry: the Service counts as headless, as in kube.
      assert.deepEqual(s.metadata?.labels, { team: 'x', [`service.${long}/headless`]: '', [`${long}/service-name`]: 'a', [`endpointslice.${long}/managed-by`]: `endpointslice-controller.${short}` });
      assert.deepEqual(s.metadata?.ownerReferences, [{ apiVersion: 'v1', kind: 'Service', name: 'a', uid: svc.metadata?.uid, controller: true, blockOwnerDeletion: true }]);
      assert.deepEqual(s.ports, [{ name: 'web', port: 8080, protocol: 'TCP' }]);
      const byIP = new Map((s.endpoints as { addresses: string[] }[]).map((e) => [e.addresses[0], e]));
      assert.deepEqual(byIP.get('10.1.0.1'), {
        addresses: ['10.1.0.1'],
        conditions: { ready: true, serving: true, terminating: false },
        targetRef: { kind: 'Pod', namespace: 'default', name: 'a-1', uid: (await client.get(PODS, 'default', 'a-1')).metadata?.uid },
        nodeName: 'node-1',
        zone: 'zone-a',
      });
      assert.deepEqual((byIP.get('10.1.0.2') as unknown as { conditions: unknown }).conditions, { ready: false, serving: false, terminating: false });
      // Readiness changes update the same slice in place.
      await setReady(await client.get(PODS, 'default', 'a-2'), '10.1.0.2', true);
      await settle();
      const after = await slicesOf('a');
      assert.deepEqual(after.map((x) => x.metadata?.name), [s.metadata?.name]);
      assert.ok((after[0]!.endpoints as { conditions: { ready: boolean } }[]).every((e) => e.conditions.ready));
    });

    it('splits the endpoints into slices of at most --max-endpoints-per-slice, and keeps a placeholder when none remain', async () => {
      for (let i = 1; i <= 5; i++) await pod(`b-${i}`, { app: 'b' }, `10.2.0.${i}`, true);
      await client.create(SERVICES, 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'b' }, spec: { selector: { app: 'b' }, ports: [{ port: 80, targetPort: 8080 }] } });
      await settle();
      const sizes = (await slicesOf('b')).map((s) => (s.endpoints as unknown[]).length).sort();
      assert.deepEqual(sizes, [2, 3]);
      for (let i = 1; i <= 5; i++) await client.delete(PODS, 'default', `b-${i}`, { gracePeriodSeconds: 0 });
      await settle();
      const left = await slicesOf('b');
      assert.equal(left.length, 1);
      assert.deepEqual([left[0]!.endpoints ?? [], left[0]!.ports ?? []], [[], []]);
    });
  });
}

describe('reconcileSlices', () => {
  before(() => setFlavor('kubernetes'));
  after(() => setFlavor('orch'));
  const svc: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'default', uid: 'u-1' }, spec: { clusterIP: '10.96.0.10', selector: { app: 's' }, ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] } };
  const podAt = (i: number): KubeObject => ({
    metadata: { name: `p-${i}`, namespace: 'default', uid: `pu-${i}`, labels: { app: 's' } },
    spec: { containers: [{ name: 'c' }] },
    status: { phase: 'Running', podIP: `10.3.0.${i}`, conditions: [{ type: 'Ready', status: 'True' }] },
  });
  const endpointOf = (i: number): unknown => ({ addresses: [`10.3.0.${i}`], conditions: { ready: true, serving: true, terminating: false }, targetRef: { kind: 'Pod', namespace: 'default', name: `p-${i}`, uid: `pu-${i}` } });
  const slice = (name: string, ids: number[]): KubeObject => ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name, namespace: 'default', labels: sliceLabels(svc), ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 's', uid: 'u-1', controller: true, blockOwnerDeletion: true }] },
    addressType: 'IPv4',
    endpoints: ids.map(endpointOf),
    ports: [{ port: 80, protocol: 'TCP' }],
  });

  it('changes nothing when the slices are right', () => {
    const plan = reconcileSlices({ service: svc, pods: [1, 2].map(podAt), existing: [slice('s-1', [1, 2])], node: () => undefined, maxEndpointsPerSlice: 3 });
    assert.deepEqual(plan, { create: [], update: [], delete: [] });
  });

  it('puts a new endpoint into the slice being updated anyway rather than an unchanged one or a new one', () => {
    // Pod 2 leaves slice s-1 (updated); pod 9 is new: it goes there, s-2 stays untouched.
    const plan = reconcileSlices({ service: svc, pods: [1, 4, 5, 9].map(podAt), existing: [slice('s-1', [1, 2]), slice('s-2', [4, 5])], node: () => undefined, maxEndpointsPerSlice: 3 });
    assert.equal(plan.create.length, 0);
    assert.equal(plan.delete.length, 0);
    assert.deepEqual(plan.update.map((s) => [s.metadata?.name, (s.endpoints as { addresses: string[] }[]).map((e) => e.addresses[0])]), [['s-1', ['10.3.0.1', '10.3.0.9']]]);
  });

  it('fits the remainder into one unchanged slice with room before creating one', () => {
    const plan = reconcileSlices({ service: svc, pods: [1, 2, 3].map(podAt), existing: [slice('s-1', [1, 2])], node: () => undefined, maxEndpointsPerSlice: 3 });
    assert.equal(plan.create.length, 0);
    assert.deepEqual(plan.update.map((s) => (s.endpoints as unknown[]).length), [3]);
  });

  it('reuses a slice to be deleted for one to be created', () => {
    const other = { ...slice('s-1', [7]), ports: [{ port: 81, protocol: 'TCP' }] };
    const plan = reconcileSlices({ service: svc, pods: [1].map(podAt), existing: [other], node: () => undefined, maxEndpointsPerSlice: 3 });
    assert.deepEqual([plan.create.length, plan.delete.length], [0, 0]);
    assert.equal(plan.update[0]?.metadata?.name, 's-1');
    assert.deepEqual(plan.update[0]?.ports, [{ port: 80, protocol: 'TCP' }]);
  });

  it('marks a terminating pod not ready but keeps it, serving as its readiness says', () => {
    const p = podAt(1);
    p.metadata!.deletionTimestamp = '2024-01-01T00:00:00Z';
    const plan = reconcileSlices({ service: svc, pods: [p], existing: [], node: () => undefined, maxEndpointsPerSlice: 3 });
    assert.deepEqual((plan.create[0]?.endpoints as { conditions: unknown }[])[0]?.conditions, { ready: false, serving: true, terminating: true });
  });
});
