// pods/x/ephemeralcontainers over HTTP: get, update and every patch type change only the
// ephemeral containers, and only by adding.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startAuthTestServer, type AuthTestServer } from '../testing/server.js';

const PATH = '/api/v1/namespaces/default/pods/dbg/ephemeralcontainers';

describe('pods/x/ephemeralcontainers', () => {
  let s: AuthTestServer;
  before(async () => {
    s = await startAuthTestServer(['--compat=kubernetes']);
    const created = await s.request('POST', '/api/v1/namespaces/default/pods', s.admin, { metadata: { name: 'dbg', labels: { a: '1' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
    assert.equal(created.status, 201, created.text);
  });
  after(async () => {
    await s?.stop();
  });
  const names = (o: Record<string, unknown>): string[] => ((o.spec as { ephemeralContainers?: { name: string }[] }).ephemeralContainers ?? []).map((c) => c.name);
  const patch = (type: string, body: unknown, query = '') => s.request('PATCH', `${PATH}${query}`, { ...s.admin, headers: { 'Content-Type': type } }, body);

  it('get answers the pod', async () => {
    const r = await s.request('GET', PATH, s.admin);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.kind, 'Pod');
  });

  it('adds through strategic merge, merge and JSON patch and apply; other fields stay', async () => {
    let r = await patch('application/strategic-merge-patch+json', { spec: { ephemeralContainers: [{ name: 'e1', image: 'busybox' }] }, metadata: { labels: { a: '2' } } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(names(r.json), ['e1']);
    assert.deepEqual((r.json.metadata as { labels: unknown }).labels, { a: '1' });
    r = await patch('application/json-patch+json', [{ op: 'add', path: '/spec/ephemeralContainers/-', value: { name: 'e2', image: 'busybox' } }]);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(names(r.json), ['e1', 'e2']);
    const current = (await s.request('GET', PATH, s.admin)).json;
    const list = (current.spec as { ephemeralContainers: unknown[] }).ephemeralContainers;
    r = await patch('application/merge-patch+json', { spec: { ephemeralContainers: [...list, { name: 'e3', image: 'busybox' }] } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(names(r.json), ['e1', 'e2', 'e3']);
    r = await patch('application/apply-patch+yaml', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'dbg' }, spec: { ephemeralContainers: [{ name: 'e4', image: 'busybox' }] } }, '?fieldManager=dbg');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(names(r.json), ['e1', 'e2', 'e3', 'e4']);
    // The main resource still refuses them.
    const pod = (await s.request('GET', '/api/v1/namespaces/default/pods/dbg', s.admin)).json;
    (pod.spec as { ephemeralContainers: unknown[] }).ephemeralContainers.push({ name: 'e5', image: 'busybox' });
    const main = await s.request('PUT', '/api/v1/namespaces/default/pods/dbg', s.admin, pod);
    assert.equal(main.status, 422, main.text);
  });

  it('refuses removal and changes (422), and a missing pod is 404', async () => {
    const current = (await s.request('GET', PATH, s.admin)).json;
    const removed = structuredClone(current);
    (removed.spec as { ephemeralContainers: unknown[] }).ephemeralContainers.pop();
    const r = await s.request('PUT', PATH, s.admin, removed);
    assert.equal(r.status, 422, r.text);
    assert.match(String(r.json.message), /existing ephemeral containers "e4" may not be removed/);
    const changed = structuredClone(current);
    (changed.spec as { ephemeralContainers: { image: string }[] }).ephemeralContainers[0]!.image = 'alpine';
    assert.equal((await s.request('PUT', PATH, s.admin, changed)).status, 422);
    const missing = await s.request('GET', '/api/v1/namespaces/default/pods/nope/ephemeralcontainers', s.admin);
    assert.equal(missing.status, 404);
  });
});
