// The endpoint controller over the real registry (memory storage), in both flavors.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../apimachinery/clock.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { LoopbackClient } from '../../server/loopback.js';
import { startControllerHarness, type ControllerHarness } from '../../testing/controller-harness.js';
import { setFlavor, type Flavor } from '../../naming/index.js';
import { endpointControllerDescriptor, ENDPOINTS, PODS, SERVICES, truncateSubsets, type EndpointSubset } from './index.js';

for (const flavor of ['kubernetes', 'orch'] as Flavor[]) {
  const domain = flavor === 'kubernetes' ? 'kubernetes.io' : 'orch.io';
  describe(`endpoint controller (${flavor} flavor)`, () => {
    let client: LoopbackClient;
    let clock: FakeClock;
    let h: ControllerHarness;

    before(async () => {
      setFlavor(flavor);
      h = await startControllerHarness(endpointControllerDescriptor, (d) => d.group === '' && d.version === 'v1' && ['namespaces', 'pods', 'services', 'endpoints'].includes(d.resource));
      ({ client, clock } = h);
    });
    after(async () => {
      await h.stop();
      setFlavor('orch');
    });

    const settle = (): Promise<void> => h.settle();

    async function pod(name: string, labels: Record<string, string>, ip: string, ready: boolean, spec: Record<string, unknown> = {}): Promise<KubeObject> {
      const created = await client.create(PODS, 'default', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, labels },
        spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }], ...spec },
      });
      return setReady(created, ip, ready);
    }
    async function setReady(p: KubeObject, ip: string, ready: boolean): Promise<KubeObject> {
      p.status = { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: clock.now().toISOString().replace(/\.\d+Z$/, 'Z') }] };
      return client.update(PODS, 'default', p, 'status');
    }
    async function service(name: string, spec: Record<string, unknown>, labels?: Record<string, string>): Promise<KubeObject> {
      return client.create(SERVICES, 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name, ...(labels ? { labels } : {}) }, spec });
    }
    const endpoints = (name: string): Promise<KubeObject> => client.get(ENDPOINTS, 'default', name);

    it('lists ready pods in addresses, unready ones in notReadyAddresses, with named ports resolved', async () => {
      await pod('a-1', { app: 'a' }, '10.0.0.1', true);
      await pod('a-2', { app: 'a' }, '10.0.0.2', false);
      await pod('b-1', { app: 'b' }, '10.0.0.9', true);
      const a1 = await client.get(PODS, 'default', 'a-1');
      await service('a', { selector: { app: 'a' }, ports: [{ name: 'web', port: 80, targetPort: 'http' }] }, { team: 'x' });
      await settle();
      const ep = await endpoints('a');
      assert.deepEqual(ep.subsets, [
        {
          addresses: [{ ip: '10.0.0.1', nodeName: 'node-1', targetRef: { kind: 'Pod', namespace: 'default', name: 'a-1', uid: a1.metadata?.uid } }],
          notReadyAddresses: [{ ip: '10.0.0.2', nodeName: 'node-1', targetRef: { kind: 'Pod', namespace: 'default', name: 'a-2', uid: (await client.get(PODS, 'default', 'a-2')).metadata?.uid } }],
          ports: [{ name: 'web', port: 8080, protocol: 'TCP' }],
        },
      ]);
      assert.deepEqual(ep.metadata?.labels, { team: 'x' });
      assert.ok(ep.metadata?.annotations?.[`endpoints.${domain}/last-change-trigger-time`], 'the trigger time is set');
      // The ready pod turns unready: it moves to notReadyAddresses.
      await setReady(a1, '10.0.0.1', false);
      await settle();
      const after = await endpoints('a');
      const subsets = after.subsets as EndpointSubset[];
      assert.equal(subsets[0]?.addresses, undefined);
      assert.deepEqual(subsets[0]?.notReadyAddresses?.map((a) => a.ip), ['10.0.0.1', '10.0.0.2']);
    });

    it('groups pods by their resolved ports, publishes not-ready ones when asked, and marks headless Services', async () => {
      await pod('c-1', { app: 'c' }, '10.0.1.1', true);
      await pod('c-2', { app: 'c' }, '10.0.1.2', false, { containers: [{ name: 'c', image: 'nginx', ports: [{ name: 'http', containerPort: 9090 }] }], hostname: 'two', subdomain: 'c' });
      await pod('c-3', { app: 'c' }, '10.0.1.3', true, { containers: [{ name: 'c', image: 'nginx' }] });
      await service('c', { selector: { app: 'c' }, clusterIP: 'None', publishNotReadyAddresses: true, ports: [{ name: 'web', port: 80, targetPort: 'http' }] });
      await settle();
      const subsets = (await endpoints('c')).subsets as EndpointSubset[];
      // c-3 has no port named http: it is left out.
      assert.deepEqual(
        subsets.map((s) => ({ ips: s.addresses?.map((a) => a.ip), host: s.addresses?.map((a) => a.hostname), port: s.ports?.[0]?.port, notReady: s.notReadyAddresses })),
        [
          { ips: ['10.0.1.1'], host: [undefined], port: 8080, notReady: undefined },
          { ips: ['10.0.1.2'], host: ['two'], port: 9090, notReady: undefined },
        ],
      );
      assert.deepEqual((await endpoints('c')).metadata?.labels, { [`service.${domain}/headless`]: '' });
    });

    it('excludes terminating and terminal pods unless published', async () => {
      await pod('d-1', { app: 'd' }, '10.0.2.1', true);
      const failed = await client.create(PODS, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'd-2', labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
      failed.status = { phase: 'Failed', podIP: '10.0.2.2' };
      await client.update(PODS, 'default', failed, 'status');
      const term = await pod('d-3', { app: 'd' }, '10.0.2.3', true, { terminationGracePeriodSeconds: 30 });
      await client.update(PODS, 'default', { ...term, metadata: { ...term.metadata, finalizers: ['example.com/hold'] } });
      await client.delete(PODS, 'default', 'd-3');
      await service('d', { selector: { app: 'd' }, ports: [{ port: 80, targetPort: 8080 }] });
      await settle();
      const subsets = (await endpoints('d')).subsets as EndpointSubset[];
      assert.deepEqual(subsets.map((s) => s.addresses?.map((a) => a.ip)), [['10.0.2.1']]);
      assert.equal(subsets[0]?.notReadyAddresses, undefined);
    });

    it('leaves Services without a selector alone and removes Endpoints with their Service', async () => {
      await service('manual', { ports: [{ port: 80 }] });
      await client.create(ENDPOINTS, 'default', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'manual' }, subsets: [{ addresses: [{ ip: '10.9.9.9' }], ports: [{ port: 80 }] }] });
      await settle();
      assert.deepEqual(((await endpoints('manual')).subsets as EndpointSubset[])[0]?.addresses, [{ ip: '10.9.9.9' }]);
      await service('gone', { selector: { app: 'a' }, ports: [{ port: 80 }] });
      await settle();
      await endpoints('gone');
      await client.delete(SERVICES, 'default', 'gone');
      await settle();
      await assert.rejects(endpoints('gone'), (e: { code?: number }) => e.code === 404);
    });

    it('truncates at 1000 addresses with the over-capacity annotation, and drops it below', async () => {
      for (let i = 0; i < 1001; i++) {
        const p = await client.create(PODS, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: `many-${i}`, labels: { app: 'many' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
        p.status = { phase: 'Running', podIP: `10.8.${i >> 8}.${i & 255}`, conditions: [{ type: 'Ready', status: 'True' }] };
        await client.update(PODS, 'default', p, 'status');
      }
      await service('many', { selector: { app: 'many' }, ports: [{ port: 80 }] });
      await settle();
      const ep = await endpoints('many');
      assert.equal(ep.metadata?.annotations?.[`endpoints.${domain}/over-capacity`], 'truncated');
      assert.equal((ep.subsets as EndpointSubset[]).reduce((n, s) => n + (s.addresses?.length ?? 0), 0), 1000);
      await client.delete(PODS, 'default', 'many-0', { gracePeriodSeconds: 0 });
      await settle();
      assert.equal((await endpoints('many')).metadata?.annotations?.[`endpoints.${domain}/over-capacity`], undefined);
    });

    it('writes an empty Endpoints for a Service selecting nothing', async () => {
      await service('empty', { selector: { app: 'none' }, ports: [{ port: 80 }] });
      await settle();
      assert.equal((await endpoints('empty')).subsets, undefined);
    });
  });
}

describe('truncateSubsets', () => {
  const addrs = (prefix: string, n: number): { ip: string }[] => Array.from({ length: n }, (_, i) => ({ ip: `${prefix}.${i}` }));
  it('keeps ready addresses first, shared among subsets by size', () => {
    const out = truncateSubsets(
      [
        { addresses: addrs('10.0.0', 600), notReadyAddresses: addrs('10.0.1', 100), ports: [{ port: 1, protocol: 'TCP' }] },
        { addresses: addrs('10.0.2', 200), notReadyAddresses: addrs('10.0.3', 300), ports: [{ port: 2, protocol: 'TCP' }] },
      ],
      1000,
    );
    assert.deepEqual(out.map((s) => [s.addresses?.length ?? 0, s.notReadyAddresses?.length ?? 0]), [[600, 50], [200, 150]]);
  });
  it('drops not-ready addresses when ready ones fill it', () => {
    const out = truncateSubsets([{ addresses: addrs('10.0.0', 1200), notReadyAddresses: addrs('10.0.1', 5) }], 1000);
    assert.deepEqual([out[0]?.addresses?.length, out[0]?.notReadyAddresses], [1000, undefined]);
  });
});
