// Black-box through kubectl, both flavors: the persistentvolume-binder binds a claim to
// the smallest fitting volume (kubectl get pvc shows Bound), says why a claim without a
// volume waits, and releases a Retain volume when its claim is deleted.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually, Kubectl, kubectlPath, serverUnavailable, startTestServer, type TestServer } from './harness.js';

const binary = kubectlPath();
const skip = serverUnavailable() ?? (binary ? undefined : 'kubectl is not on PATH');

const VOLUMES = `apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-small
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  hostPath: {path: /data/small}
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-fit
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  hostPath: {path: /data/fit}
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-large
spec:
  capacity: {storage: 20Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Delete
  hostPath: {path: /data/large}
`;

const CLAIM = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  namespace: default
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 3Gi}}
`;

const HUGE_CLAIM = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: huge
  namespace: default
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Ti}}
`;

for (const flavor of ['kubernetes', 'orch'] as const) {
describe(`persistentvolume-binder with kubectl (${flavor} flavor)`, { skip }, () => {
  let server: TestServer;
  let kubectl: Kubectl;
  const validate = flavor === 'orch' ? ['--validate=false'] : [];
  const domain = flavor === 'orch' ? 'orch.io' : 'kubernetes.io';

  before(async () => {
    server = await startTestServer({ flavor });
    kubectl = new Kubectl(binary!, server.kubeconfigPath);
  });
  after(async () => {
    kubectl?.dispose();
    await server?.stop();
  });

  test('a claim is bound to the smallest volume that fits; kubectl get pvc shows Bound', async () => {
    const pvs = await kubectl.run(['apply', ...validate, '-f', '-'], { input: VOLUMES });
    assert.equal(pvs.code, 0, pvs.stderr);
    const pvc = await kubectl.run(['apply', ...validate, '-f', '-'], { input: CLAIM });
    assert.equal(pvc.code, 0, pvc.stderr);
    const bound = await eventually(async () => {
      const r = await kubectl.run(['get', 'pvc', 'data', '-o', 'jsonpath={.status.phase} {.spec.volumeName} {.status.capacity.storage}']);
      return r.stdout.startsWith('Bound ') ? r.stdout : undefined;
    }, 'the claim Bound');
    assert.equal(bound, 'Bound pv-fit 5Gi');
    // The server's table (served for kubectl's own group names).
    if (flavor === 'kubernetes') {
      const line = await kubectl.run(['get', 'pvc', 'data', '--no-headers']);
      assert.match(line.stdout, /^data\s+Bound\s+pv-fit\s+5Gi\s+RWO\s/);
    }
    const annotations = await kubectl.run(['get', 'pvc', 'data', '-o', 'jsonpath={.metadata.annotations}']);
    const parsed = JSON.parse(annotations.stdout) as Record<string, string>;
    assert.equal(parsed[`pv.${domain}/bind-completed`], 'yes');
    assert.equal(parsed[`pv.${domain}/bound-by-controller`], 'yes');
    const pv = await eventually(async () => {
      const r = await kubectl.run(['get', 'pv', 'pv-fit', '-o', 'jsonpath={.status.phase} {.spec.claimRef.namespace}/{.spec.claimRef.name}']);
      return r.stdout.startsWith('Bound ') ? r.stdout : undefined;
    }, 'the volume Bound');
    assert.equal(pv, 'Bound default/data');
    assert.equal((await kubectl.run(['get', 'pv', 'pv-large', '-o', 'jsonpath={.status.phase}'])).stdout, 'Available');
  });

  test('a claim no volume fits stays Pending with a FailedBinding event', async () => {
    const r = await kubectl.run(['apply', ...validate, '-f', '-'], { input: HUGE_CLAIM });
    assert.equal(r.code, 0, r.stderr);
    const note = await eventually(async () => {
      const ev = await kubectl.run(['get', 'events', '--field-selector', 'involvedObject.name=huge', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}']);
      return ev.stdout.includes('FailedBinding') ? ev.stdout : undefined;
    }, 'FailedBinding');
    assert.match(note, /FailedBinding: no persistent volumes available for this claim and no storage class is set/);
    assert.equal((await kubectl.run(['get', 'pvc', 'huge', '-o', 'jsonpath={.status.phase}'])).stdout, 'Pending');
  });

  test('deleting the claim releases a Retain volume and deletes a Delete volume', async () => {
    const del = await kubectl.run(['delete', 'pvc', 'data', '--wait=true', '--timeout=30s']);
    assert.equal(del.code, 0, del.stderr);
    await eventually(async () => {
      const r = await kubectl.run(['get', 'pv', 'pv-fit', '-o', 'jsonpath={.status.phase} {.spec.claimRef.namespace}/{.spec.claimRef.name}']);
      return r.stdout === 'Released default/data' ? true : undefined;
    }, 'pv-fit Released');

    // A Delete volume goes with its claim (the pv-protection finalizer comes off once it is not Bound).
    const temp = await kubectl.run(['apply', ...validate, '-f', '-'], { input: CLAIM.replace('name: data', 'name: temp').replace('3Gi', '10Gi') });
    assert.equal(temp.code, 0, temp.stderr);
    await eventually(async () => {
      const r = await kubectl.run(['get', 'pvc', 'temp', '-o', 'jsonpath={.status.phase} {.spec.volumeName}']);
      return r.stdout === 'Bound pv-large' ? true : undefined;
    }, 'temp Bound to pv-large');
    const gone = await kubectl.run(['delete', 'pvc', 'temp', '--wait=true', '--timeout=30s']);
    assert.equal(gone.code, 0, gone.stderr);
    await eventually(async () => {
      const r = await kubectl.run(['get', 'pv', 'pv-large']);
      return /NotFound/.test(r.stderr) ? true : undefined;
    }, 'pv-large deleted');
  });
});
}
