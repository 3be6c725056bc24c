// Service references resolve to Endpoints, then EndpointSlices, then the clusterIP.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GroupVersionResource } from '../../apimachinery/types.js';
import { FakeClient } from '../../testing/fake-client.js';
import { eventually } from '../../testing/wait.js';
import { SharedInformerFactory } from '../../client/informer-factory.js';
import { group, longDomainKey, setFlavor } from '../../naming/index.js';
import { InformerServiceResolver } from './sources.js';

setFlavor('orch');

const SERVICES: GroupVersionResource = { group: '', version: 'v1', resource: 'services' };
const ENDPOINTS: GroupVersionResource = { group: '', version: 'v1', resource: 'endpoints' };
const SLICES = (): GroupVersionResource => ({ group: group('discovery'), version: 'v1', resource: 'endpointslices' });
const ref = { namespace: 'hooks', name: 'svc', port: 443, path: '/' };

test('endpoints first, then endpoint slices, then the clusterIP, on the port behind the service port', async () => {
  const client = new FakeClient();
  const factory = new SharedInformerFactory(client);
  factory.start();
  const resolver = new InformerServiceResolver((r) => factory.informerFor(r));
  try {
    await assert.rejects(resolver.resolve(ref), { message: 'service "svc" not found' });
    await client.create(SERVICES, 'hooks', { metadata: { name: 'svc', namespace: 'hooks' }, spec: { clusterIP: '10.0.0.7', ports: [{ name: 'https', port: 443, targetPort: 8443 }] } });
    // Waits until the resolver's informer has seen an object.
    const seen = async (r: GroupVersionResource, name: string): Promise<void> => {
      await eventually(() => factory.informerFor(r).get('hooks', name), `${r.resource}/${name} seen`, 5000);
    };
    await seen(SERVICES, 'svc');
    assert.deepEqual(await resolver.resolve(ref), { host: '10.0.0.7', port: 443 });
    await assert.rejects(resolver.resolve({ ...ref, port: 80 }), { message: 'no service port 80 found for service "svc"' });

    await client.create(SLICES(), 'hooks', {
      metadata: { name: 'svc-abc', namespace: 'hooks', labels: { [longDomainKey('service-name')]: 'svc' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.1.0.9'], conditions: { ready: false } }, { addresses: ['10.1.0.8'], conditions: { ready: true } }],
      ports: [{ name: 'https', port: 8443 }],
    });
    await seen(SLICES(), 'svc-abc');
    assert.deepEqual(await resolver.resolve(ref), { host: '10.1.0.8', port: 8443 });

    await client.create(ENDPOINTS, 'hooks', {
      metadata: { name: 'svc', namespace: 'hooks' },
      subsets: [{ addresses: [{ ip: '10.1.0.7' }], notReadyAddresses: [{ ip: '10.1.0.6' }], ports: [{ name: 'https', port: 9443 }] }],
    });
    await seen(ENDPOINTS, 'svc');
    assert.deepEqual(await resolver.resolve(ref), { host: '10.1.0.7', port: 9443 });
  } finally {
    await factory.stop();
  }
});
