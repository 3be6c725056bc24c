// Pod binding, graceful pod deletion and service allocation over HTTP, as clients see them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { startAuthTestServer, type AuthTestServer } from '../testing/server.js';

describe('core kinds over HTTP (kubernetes flavor)', () => {
  let s: AuthTestServer;

  before(async () => {
    s = await startAuthTestServer(['--compat=kubernetes', '--service-cluster-ip-range=10.96.0.0/16', '--service-node-port-range=31000-31099']);
    const sa = await s.request('POST', '/api/v1/namespaces/default/serviceaccounts', s.admin, { metadata: { name: 'default' } });
    assert.ok(sa.status === 201 || sa.status === 409, sa.text);
  });

  after(async () => {
    await s?.stop();
    if (s) rmSync(s.dataDir, { recursive: true, force: true });
  });

  const pod = (name: string): unknown => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  const binding = (name: string, node: string): unknown => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: node } });

  it('a completed delete answers with the object where the kind says so, else with a Success Status', async () => {
    const cases: [string, unknown, string][] = [
      ['/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'gone-sa' } }, 'ServiceAccount'],
      ['/apis/storage.k8s.io/v1/storageclasses', { metadata: { name: 'gone-sc' }, provisioner: 'p' }, 'StorageClass'],
      ['/api/v1/namespaces/default/configmaps', { metadata: { name: 'gone-cm' } }, 'Status'],
    ];
    for (const [collection, body, kind] of cases) {
      const name = (body as { metadata: { name: string } }).metadata.name;
      assert.equal((await s.request('POST', collection, s.admin, body)).status, 201);
      const deleted = await s.request('DELETE', `${collection}/${name}`, s.admin);
      assert.equal(deleted.status, 200, deleted.text);
      assert.equal(deleted.json.kind, kind, deleted.text);
    }
  });

  it('binds a pod once through pods/x/binding and bindings', async () => {
    assert.equal((await s.request('POST', '/api/v1/namespaces/default/pods', s.admin, pod('b1'))).status, 201);
    const bound = await s.request('POST', '/api/v1/namespaces/default/pods/b1/binding', s.admin, binding('b1', 'node-1'));
    assert.equal(bound.status, 201, bound.text);
    assert.deepEqual(bound.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const again = await s.request('POST', '/api/v1/namespaces/default/bindings', s.admin, binding('b1', 'node-2'));
    assert.equal(again.status, 409, again.text);
    assert.equal(again.json.reason, 'Conflict');
    assert.equal(again.json.message, 'Operation cannot be fulfilled on pods/binding "b1": pod b1 is already assigned to node "node-1"');
    const got = await s.request('GET', '/api/v1/namespaces/default/pods/b1', s.admin);
    assert.equal((got.json.spec as { nodeName?: string }).nodeName, 'node-1');
  });

  it('a bound pod is deleted gracefully: 200 with the pod while it waits, gone with grace 0', async () => {
    const first = await s.request('DELETE', '/api/v1/namespaces/default/pods/b1', s.admin);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.kind, 'Pod');
    const m = first.json.metadata as { deletionTimestamp?: string; deletionGracePeriodSeconds?: number };
    assert.equal(m.deletionGracePeriodSeconds, 30);
    assert.ok(m.deletionTimestamp);
    assert.equal((await s.request('GET', '/api/v1/namespaces/default/pods/b1', s.admin)).status, 200);
    const now = await s.request('DELETE', '/api/v1/namespaces/default/pods/b1?gracePeriodSeconds=0', s.admin);
    assert.equal(now.status, 200, now.text);
    assert.equal((now.json.metadata as { deletionGracePeriodSeconds?: number }).deletionGracePeriodSeconds, 0);
    assert.equal((await s.request('GET', '/api/v1/namespaces/default/pods/b1', s.admin)).status, 404);
  });

  it('services get addresses and node ports from the configured ranges; the server has its own', async () => {
    const own = await s.request('GET', '/api/v1/namespaces/default/services/kubernetes', s.admin);
    assert.equal(own.status, 200, own.text);
    assert.deepEqual((own.json.spec as { clusterIPs?: string[] }).clusterIPs, ['10.96.0.1']);
    const endpoints = await s.request('GET', '/api/v1/namespaces/default/endpoints/kubernetes', s.admin);
    const port = new URL(s.url).port;
    assert.deepEqual(endpoints.json.subsets, [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: Number(port), protocol: 'TCP' }] }]);

    const created = await s.request('POST', '/api/v1/namespaces/default/services', s.admin, {
      metadata: { name: 'web' },
      spec: { type: 'NodePort', selector: { app: 'web' }, ports: [{ port: 80 }] },
    });
    assert.equal(created.status, 201, created.text);
    const spec = created.json.spec as { clusterIP: string; ports: Array<{ nodePort: number }> };
    assert.match(spec.clusterIP, /^10\.96\./);
    assert.ok(spec.ports[0]!.nodePort >= 31000 && spec.ports[0]!.nodePort <= 31099);
    const clash = await s.request('POST', '/api/v1/namespaces/default/services', s.admin, {
      metadata: { name: 'web2' },
      spec: { clusterIP: spec.clusterIP, ports: [{ port: 80 }] },
    });
    assert.equal(clash.status, 422, clash.text);
    assert.equal(
      clash.json.message,
      `Service "web2" is invalid: spec.clusterIPs: Invalid value: []string{"${spec.clusterIP}"}: failed to allocate IP ${spec.clusterIP}: provided IP is already allocated`,
    );
    assert.equal((await s.request('DELETE', '/api/v1/namespaces/default/services/web', s.admin)).status, 200);
    const reuse = await s.request('POST', '/api/v1/namespaces/default/services', s.admin, {
      metadata: { name: 'web2' },
      spec: { clusterIP: spec.clusterIP, ports: [{ port: 80 }] },
    });
    assert.equal(reuse.status, 201, reuse.text);
  });

  const SECRETS = '/api/v1/namespaces/default/secrets';
  const b64 = (v: string): string => Buffer.from(v, 'utf8').toString('base64');

  it('Secret stringData is folded into data on create, update and patch, and never stored or answered', async () => {
    const created = await s.request('POST', SECRETS, s.admin, {
      metadata: { name: 'sd' },
      data: { both: b64('from data'), kept: b64('k') },
      stringData: { both: 'from stringData', user: 'admin ü' },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.stringData, undefined);
    assert.deepEqual(created.json.data, { both: b64('from stringData'), kept: b64('k'), user: b64('admin ü') });
    const read = await s.request('GET', `${SECRETS}/sd`, s.admin);
    assert.equal(read.json.stringData, undefined, read.text);
    assert.deepEqual(read.json.data, created.json.data);

    const updated = await s.request('PUT', `${SECRETS}/sd`, s.admin, { ...read.json, stringData: { kept: 'new', extra: 'e' } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.json.stringData, undefined);
    assert.deepEqual(updated.json.data, { both: b64('from stringData'), kept: b64('new'), user: b64('admin ü'), extra: b64('e') });

    const smp = { ...s.admin, headers: { 'Content-Type': 'application/strategic-merge-patch+json' } };
    const patched = await s.request('PATCH', `${SECRETS}/sd`, smp, { stringData: { user: 'root' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json.stringData, undefined);
    assert.equal((patched.json.data as Record<string, string>).user, b64('root'));
    assert.equal((await s.request('GET', `${SECRETS}/sd`, s.admin)).json.stringData, undefined);
  });

  it('Secret stringData keys are checked as data keys, and the folded data against the size limit', async () => {
    const badKey = await s.request('POST', SECRETS, s.admin, { metadata: { name: 'sd-bad' }, stringData: { 'a b': 'x' } });
    assert.equal(badKey.status, 422, badKey.text);
    assert.match(String(badKey.json.message), /^Secret "sd-bad" is invalid: data\[a b\]: Invalid value: "a b": a valid config key/);
    const big = await s.request('POST', SECRETS, s.admin, { metadata: { name: 'sd-big' }, data: { a: b64('x'.repeat(600 * 1024)) }, stringData: { b: 'y'.repeat(600 * 1024) } });
    assert.equal(big.status, 422, big.text);
    assert.equal(big.json.message, 'Secret "sd-big" is invalid: data: Too long: must have at most 1048576 bytes');
    assert.equal((await s.request('GET', `${SECRETS}/sd-bad`, s.admin)).status, 404);
  });

  it('a PUT with resourceVersion "0" replaces without a precondition (kubectl replace of a manifest)', async () => {
    const cm = '/api/v1/namespaces/default/configmaps';
    assert.equal((await s.request('POST', cm, s.admin, { metadata: { name: 'rv0' }, data: { a: '1' } })).status, 201);
    const replaced = await s.request('PUT', `${cm}/rv0`, s.admin, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'rv0', resourceVersion: '0' }, data: { a: '2' } });
    assert.equal(replaced.status, 200, replaced.text);
    assert.deepEqual(replaced.json.data, { a: '2' });
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'rv0-node', resourceVersion: '0', labels: { a: '1' } } };
    assert.equal((await s.request('POST', '/api/v1/nodes', s.admin, node)).status, 201);
    const nodeReplaced = await s.request('PUT', '/api/v1/nodes/rv0-node', s.admin, { ...node, metadata: { ...node.metadata, labels: { a: '2' } } });
    assert.equal(nodeReplaced.status, 200, nodeReplaced.text);
    const stale = await s.request('PUT', `${cm}/rv0`, s.admin, { metadata: { name: 'rv0', resourceVersion: '1' }, data: { a: '3' } });
    assert.equal(stale.status, 409, stale.text);
  });
});
