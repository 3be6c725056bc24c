// Simulated nodes in the orch flavor: the same KWOK annotation (KWOK's own key), the flavor's
// node-lease namespace, coordination group and well-known labels.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, test } from 'node:test';
import { FakeClock, startApiServer, type ApiServerHandle } from '../lib/index.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

let server: ApiServerHandle;
let clock: FakeClock;

function call(method: string, path: string, body?: unknown): Promise<{ code: number; body: J }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      { method, ca: server.ca, cert: server.certPem, key: server.keyPem, headers: body ? { 'content-type': 'application/json' } : {} },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // A log: text.
          }
          resolve({ code: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

before(async () => {
  clock = new FakeClock(Date.UTC(2024, 0, 1));
  server = await startApiServer({ flavor: 'orch', simulatedNodes: 2, clock });
  await server.settled();
});
after(() => server?.stop());

test('orch flavor: Ready nodes with the flavor labels, leases in orch-node-lease renewed, a pod Running, its log empty', async () => {
  const nodes = (await call('GET', '/api/v1/nodes')).body.items as J[];
  assert.deepEqual(
    nodes.map((n) => n.metadata.name),
    ['node-000000', 'node-000001'],
  );
  for (const n of nodes) {
    assert.equal(n.metadata.annotations['kwok.x-k8s.io/node'], 'fake');
    assert.equal(n.metadata.labels['orch.io/hostname'], n.metadata.name);
    assert.equal(n.metadata.labels['kubernetes.io/hostname'], undefined);
    assert.equal(n.status.conditions.find((c: J) => c.type === 'Ready').status, 'True');
  }
  const leases = async (): Promise<J[]> => (await call('GET', '/apis/coordination.orch.io/v1/namespaces/orch-node-lease/leases')).body.items as J[];
  const first = await leases();
  assert.deepEqual(first.map((l) => l.spec.holderIdentity).sort(), ['node-000000', 'node-000001']);
  clock.step(10_000);
  await server.settled();
  const second = await leases();
  for (const l of second) assert.notEqual(l.spec.renewTime, first.find((f) => f.metadata.name === l.metadata.name).spec.renewTime);

  const created = await call('POST', '/api/v1/namespaces/default/pods', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: { nodeName: 'node-000001', containers: [{ name: 'c', image: 'nginx' }] },
  });
  assert.equal(created.code, 201);
  await server.settled();
  const p = (await call('GET', '/api/v1/namespaces/default/pods/p')).body;
  assert.equal(p.status.phase, 'Running');
  assert.equal(p.status.hostIP, '192.0.2.2');
  const log = await call('GET', '/api/v1/namespaces/default/pods/p/log');
  assert.deepEqual([log.code, log.body], [200, '']);
});
