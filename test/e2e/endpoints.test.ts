// Black-box through kubectl (kubernetes flavor): `kubectl expose` of labelled pods, whose
// readiness the test writes through pods/status as a node agent would; the endpoint and
// endpointslice controllers list them, and a pod turning not ready moves to notReadyAddresses.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { KubeObject } from '../../src/apimachinery/types.js';
import { eventually, Kubectl, kubectlPath, serverUnavailable, startTestServer, type TestServer } from './harness.js';

const binary = kubectlPath();
const skip = serverUnavailable() ?? (binary ? undefined : 'kubectl is not on PATH');
const PODS = { group: '', version: 'v1', resource: 'pods' };

let server: TestServer;
let kubectl: Kubectl;

before(async () => {
  if (skip) return;
  // No scheduler: nothing but the test writes these pods' status.
  server = await startTestServer({ flavor: 'kubernetes', args: ['--scheduler=false'] });
  kubectl = new Kubectl(binary!, server.kubeconfigPath);
});
after(async () => {
  if (skip) return;
  kubectl.dispose();
  await server.stop();
});

async function setReady(name: string, ip: string, ready: boolean): Promise<void> {
  const pod = await server.client.get(PODS, 'default', name);
  pod.status = {
    phase: 'Running',
    podIP: ip,
    podIPs: [{ ip }],
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }],
  };
  await server.client.update(PODS, 'default', pod, 'status');
}

interface Subset {
  addresses?: { ip: string; targetRef?: { name: string } }[];
  notReadyAddresses?: { ip: string }[];
  ports?: { port: number }[];
}

test('kubectl expose of ready pods: kubectl get endpoints and endpointslices show them; a pod turning not ready moves to notReadyAddresses', { skip }, async () => {
  for (const [name, ip] of [
    ['web-1', '10.244.0.11'],
    ['web-2', '10.244.0.12'],
  ] as const) {
    const run = await kubectl.run(['run', name, '--image=nginx', '--labels=app=web', '--port=8080']);
    assert.equal(run.code, 0, run.stderr);
    await setReady(name, ip, true);
  }
  const exposed = await kubectl.run(['expose', 'pod', 'web-1', '--name=web', '--port=80', '--target-port=8080']);
  assert.equal(exposed.code, 0, exposed.stderr);

  const ep = await eventually(async () => {
    const res = await kubectl.run(['get', 'endpoints', 'web', '-o', 'json']);
    if (res.code !== 0) return undefined;
    const obj = JSON.parse(res.stdout) as { subsets?: Subset[] };
    return obj.subsets?.[0]?.addresses?.length === 2 ? obj : undefined;
  }, 'the Endpoints with both pods');
  assert.deepEqual(ep.subsets?.[0]?.addresses?.map((a) => [a.ip, a.targetRef?.name]), [
    ['10.244.0.11', 'web-1'],
    ['10.244.0.12', 'web-2'],
  ]);
  assert.deepEqual(ep.subsets?.[0]?.ports?.map((p) => p.port), [8080]);
  const table = await kubectl.run(['get', 'endpoints', 'web']);
  assert.match(table.stdout, /10\.244\.0\.11:8080,10\.244\.0\.12:8080/);

  const slices = await eventually(async () => {
    const res = await kubectl.run(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'json']);
    const list = JSON.parse(res.stdout) as { items: KubeObject[] };
    const eps = list.items.flatMap((s) => (s.endpoints as { addresses: string[] }[] | undefined) ?? []);
    return eps.length === 2 ? list.items : undefined;
  }, 'the EndpointSlice with both pods');
  assert.equal(slices[0]?.metadata?.labels?.['endpointslice.kubernetes.io/managed-by'], 'endpointslice-controller.k8s.io');
  const sliceTable = await kubectl.run(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web']);
  assert.match(sliceTable.stdout, /IPv4\s+8080\s+10\.244\.0\.11,10\.244\.0\.12/);

  await setReady('web-2', '10.244.0.12', false);
  const moved = await eventually(async () => {
    const obj = JSON.parse((await kubectl.run(['get', 'endpoints', 'web', '-o', 'json'])).stdout) as { subsets?: Subset[] };
    return obj.subsets?.[0]?.notReadyAddresses?.length === 1 ? obj : undefined;
  }, 'web-2 in notReadyAddresses');
  assert.deepEqual(moved.subsets?.[0]?.addresses?.map((a) => a.ip), ['10.244.0.11']);
  assert.deepEqual(moved.subsets?.[0]?.notReadyAddresses?.map((a) => a.ip), ['10.244.0.12']);
  await eventually(async () => {
    const list = JSON.parse((await kubectl.run(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'json'])).stdout) as { items: KubeObject[] };
    const eps = list.items.flatMap((s) => (s.endpoints as { addresses: string[]; conditions: { ready: boolean } }[] | undefined) ?? []);
    return eps.find((e) => e.addresses[0] === '10.244.0.12')?.conditions.ready === false || undefined;
  }, 'web-2 not ready in its EndpointSlice');

  // The API server's own Service keeps the endpoints the API server writes.
  const own = JSON.parse((await kubectl.run(['get', 'endpoints', 'kubernetes', '-o', 'json'])).stdout) as { subsets?: Subset[] };
  assert.equal(own.subsets?.[0]?.addresses?.length, 1);
});
