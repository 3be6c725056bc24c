// Black-box, through the whole server with a FakeClock (Kubernetes' flavor): a namespace whose
// pods are bound to a node that does not exist terminates once podgc has collected them;
// `--terminated-pod-gc-threshold` reaches the in-process controller; the out-of-service taint
// carries the flavor's domain.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { FakeClock, startApiServer, type ApiServerHandle } from '../../lib/index.js';
import { eventually } from '../../testing/wait.js';
import { GC_CHECK_PERIOD_MS, QUARANTINE_MS } from './index.js';

describe('podgc in the server', () => {
  let server: ApiServerHandle;
  let clock: FakeClock;
  before(async () => {
    clock = new FakeClock(Date.now());
    server = await startApiServer({ clock, flags: ['--terminated-pod-gc-threshold=1'] });
  });
  after(async () => {
    await server?.stop();
  });

  const call = (method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; json: Record<string, unknown> }> =>
    new Promise((resolve, reject) => {
      const headers = { Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': contentType }) };
      const req = request(new URL(path, server.url), { method, headers, ca: server.ca, cert: server.certPem, key: server.keyPem, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown> }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  const pod = (name: string, spec: Record<string, unknown>): unknown => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } });
  const passes = async (ms: number): Promise<void> => {
    for (let t = 0; t < ms; t += GC_CHECK_PERIOD_MS) {
      await server.settled();
      clock.step(GC_CHECK_PERIOD_MS);
    }
    await server.settled();
  };

  it('lets a namespace whose pods are bound to a missing node terminate', async () => {
    assert.equal((await call('POST', '/api/v1/namespaces', { metadata: { name: 'stranded' } })).status, 201);
    assert.equal((await call('POST', '/api/v1/namespaces/stranded/pods', pod('p', { nodeName: 'no-such-node' }))).status, 201);
    assert.equal((await call('DELETE', '/api/v1/namespaces/stranded')).status, 200);
    await server.settled();
    const pending = await call('GET', '/api/v1/namespaces/stranded/pods/p');
    assert.ok((pending.json.metadata as { deletionTimestamp?: string }).deletionTimestamp, 'terminating, with no node agent to finish it');
    await passes(QUARANTINE_MS + GC_CHECK_PERIOD_MS);
    await eventually(async () => (await call('GET', '/api/v1/namespaces/stranded')).status === 404, 'the namespace to go');
  });

  it('keeps --terminated-pod-gc-threshold terminated pods', async () => {
    assert.equal((await call('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } })).status, 201);
    for (const name of ['done-1', 'done-2', 'done-3']) {
      assert.equal((await call('POST', '/api/v1/namespaces/default/pods', pod(name, { nodeName: 'node-1' }))).status, 201);
      const res = await call('PATCH', `/api/v1/namespaces/default/pods/${name}/status`, { status: { phase: 'Succeeded' } }, 'application/merge-patch+json');
      assert.equal(res.status, 200);
      clock.step(1000);
    }
    await passes(GC_CHECK_PERIOD_MS);
    await eventually(async () => {
      const list = await call('GET', '/api/v1/namespaces/default/pods');
      const names = (list.json.items as { metadata: { name: string } }[]).map((p) => p.metadata.name);
      return names.length === 1 ? names : undefined;
    }, 'the oldest terminated pods to go').then((names) => assert.deepEqual(names, ['done-3']));
  });

  it('finishes terminating pods on a node with the out-of-service taint', async () => {
    const created = await call('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'broken' }, spec: { taints: [{ key: 'node.kubernetes.io/out-of-service', effect: 'NoExecute' }] } });
    assert.equal(created.status, 201);
    assert.equal((await call('POST', '/api/v1/namespaces/default/pods', pod('stuck', { nodeName: 'broken' }))).status, 201);
    assert.equal((await call('DELETE', '/api/v1/namespaces/default/pods/stuck')).status, 200);
    await passes(GC_CHECK_PERIOD_MS);
    await eventually(async () => (await call('GET', '/api/v1/namespaces/default/pods/stuck')).status === 404, 'the pod to go');
  });
});
