// The endpointslicemirroring controller over the real registry (memory storage), in both flavors.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../apimachinery/types.js';
import type { LoopbackClient } from '../../server/loopback.js';
import { startControllerHarness, type ControllerHarness } from '../../testing/controller-harness.js';
import { setFlavor, type Flavor } from '../../naming/index.js';
import { ENDPOINTS, SERVICES } from '../endpoint/util.js';
import { endpointSlicesResource } from '../endpointslice/reconcile.js';
import { endpointSliceMirroringControllerDescriptor } from './index.js';

for (const flavor of ['kubernetes', 'orch'] as Flavor[]) {
  const long = flavor === 'kubernetes' ? 'kubernetes.io' : 'orch.io';
  const short = flavor === 'kubernetes' ? 'k8s.io' : 'orch.io';
  describe(`endpointslicemirroring controller (${flavor} flavor)`, () => {
    let client: LoopbackClient;
    let h: ControllerHarness;

    before(async () => {
      setFlavor(flavor);
      h = await startControllerHarness(endpointSliceMirroringControllerDescriptor, (d) => (d.group === '' && d.version === 'v1' && ['namespaces', 'services', 'endpoints'].includes(d.resource)) || (d.resource === 'endpointslices' && d.version === 'v1'));
      ({ client } = h);
    });
    after(async () => {
      await h.stop();
      setFlavor('orch');
    });

    const settle = (): Promise<void> => h.settle();
    const slicesOf = async (name: string): Promise<KubeObject[]> =>
      (await client.list(endpointSlicesResource(), 'default')).items.filter((s) => s.metadata?.labels?.[`${long}/service-name`] === name);

    it('mirrors the Endpoints of a Service without a selector, ready and not ready, and follows its changes', async () => {
      await client.create(SERVICES, 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ext' }, spec: { ports: [{ port: 80 }] } });
      const ep = await client.create(ENDPOINTS, 'default', {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: 'ext', labels: { team: 'x' }, annotations: { note: 'n', [`${flavor === 'kubernetes' ? 'kubectl.kubernetes.io' : 'kubectl.orch.io'}/last-applied-configuration`]: '{}' } },
        subsets: [{ addresses: [{ ip: '10.5.0.1', nodeName: 'n1' }], notReadyAddresses: [{ ip: '10.5.0.2' }], ports: [{ name: 'web', port: 8080, protocol: 'TCP' }] }],
      });
      await settle();
      const slices = await slicesOf('ext');
      assert.equal(slices.length, 1);
      const s = slices[0]!;
      assert.deepEqual(s.metadata?.labels, { team: 'x', [`${long}/service-name`]: 'ext', [`endpointslice.${long}/managed-by`]: `endpointslicemirroring-controller.${short}` });
      assert.deepEqual(s.metadata?.annotations, { note: 'n' });
      assert.deepEqual(s.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]), [['Endpoints', 'ext', ep.metadata?.uid, true]]);
      assert.equal(s.addressType, 'IPv4');
      assert.deepEqual(s.endpoints, [
        { addresses: ['10.5.0.1'], conditions: { ready: true }, nodeName: 'n1' },
        { addresses: ['10.5.0.2'], conditions: { ready: false } },
      ]);
      assert.deepEqual(s.ports, [{ name: 'web', port: 8080, protocol: 'TCP' }]);
      // A change is written to the same slice.
      const cur = await client.get(ENDPOINTS, 'default', 'ext');
      cur.subsets = [{ addresses: [{ ip: '10.5.0.3' }], ports: [{ name: 'web', port: 8080, protocol: 'TCP' }] }];
      await client.update(ENDPOINTS, 'default', cur);
      await settle();
      const after = await slicesOf('ext');
      assert.deepEqual(after.map((x) => [x.metadata?.name, x.endpoints]), [[s.metadata?.name, [{ addresses: ['10.5.0.3'], conditions: { ready: true } }]]]);
      // Gone with the Endpoints.
      await client.delete(ENDPOINTS, 'default', 'ext');
      await settle();
      assert.deepEqual(await slicesOf('ext'), []);
    });

    it('leaves Endpoints of Services with a selector, without a Service, or marked skip-mirror alone', async () => {
      await client.create(SERVICES, 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'sel' }, spec: { selector: { app: 'a' }, ports: [{ port: 80 }] } });
      await client.create(SERVICES, 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'skip' }, spec: { ports: [{ port: 80 }] } });
      const subsets = [{ addresses: [{ ip: '10.6.0.1' }], ports: [{ port: 80, protocol: 'TCP' }] }];
      await client.create(ENDPOINTS, 'default', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'sel' }, subsets });
      await client.create(ENDPOINTS, 'default', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'orphan' }, subsets });
      await client.create(ENDPOINTS, 'default', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'skip', labels: { [`endpointslice.${long}/skip-mirror`]: 'true' } }, subsets });
      await settle();
      for (const name of ['sel', 'orphan', 'skip']) assert.deepEqual(await slicesOf(name), [], name);
    });
  });
}
