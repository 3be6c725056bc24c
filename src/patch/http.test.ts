// Patches with prototype-named keys over HTTPS against an in-process server: the process
// stays sound for every later request.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../testing/api-server.js';

let t: TestServer;
let protoSnapshot: string[] = [];
before(async () => {
  protoSnapshot = Object.getOwnPropertyNames(Object.prototype).sort();
  t = await startTestServer();
  const ns = await t.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } } });
  assert.equal(ns.status, 201, ns.body);
});
after(async () => {
  await t.close();
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), protoSnapshot);
});

const CM = '/api/v1/namespaces/default/configmaps';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

describe('prototype keys in patches over HTTP', () => {
  it("the issue's merge patch, with and without dryRun, leaves creates working", async () => {
    const created = await t.request('POST', CM, { body: { metadata: { name: 'target' }, data: { a: '1' } } });
    assert.equal(created.status, 201, created.body);
    for (const query of ['?dryRun=All', '']) {
      const r = await t.request('PATCH', `${CM}/target${query}`, { body: '{"__proto__":{"namespace":"kube-system"}}', headers: MERGE });
      assert.ok(r.status < 500, r.body);
      assert.equal(({} as Record<string, unknown>).namespace, undefined);
      assert.equal(Object.getPrototypeOf({}), Object.prototype);
    }
    const cm = await t.request('POST', CM, { body: { metadata: { name: 'after' }, data: { b: '2' } } });
    assert.equal(cm.status, 201, cm.body);
    const ns = await t.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'after' } } });
    assert.equal(ns.status, 201, ns.body);
    const denied = await t.request('GET', `${CM}/after`, { as: 'denied' });
    assert.ok(denied.status === 403 || denied.status === 401, denied.body);
  });

  it('a label named constructor and a data key named __proto__ are added, read back and removed by a merge patch', async () => {
    const created = await t.request('POST', CM, { body: { metadata: { name: 'labelled' } } });
    assert.equal(created.status, 201, created.body);
    // A label key must start with an alphanumeric character: `__proto__` is refused like any other such key.
    const refused = await t.request('PATCH', `${CM}/labelled`, { body: '{"metadata":{"labels":{"__proto__":"v"}}}', headers: MERGE });
    assert.equal(refused.status, 422, refused.body);
    assert.match(String((refused.json() as { message?: unknown }).message), /metadata.labels: Invalid value: "__proto__"/);
    const added = await t.request('PATCH', `${CM}/labelled`, { body: '{"metadata":{"labels":{"constructor":"v"}},"data":{"__proto__":"d"}}', headers: MERGE });
    assert.equal(added.status, 200, added.body);
    const read = await t.request('GET', `${CM}/labelled`);
    assert.match(read.body, /"labels":\{"constructor":"v"\}/);
    assert.match(read.body, /"data":\{"__proto__":"d"\}/);
    const removed = await t.request('PATCH', `${CM}/labelled`, { body: '{"metadata":{"labels":{"constructor":null}},"data":{"__proto__":null}}', headers: MERGE });
    assert.equal(removed.status, 200, removed.body);
    assert.doesNotMatch((await t.request('GET', `${CM}/labelled`)).body, /__proto__|constructor/);
  });
});

describe('strategic merge patch errors over HTTP', () => {
  const SMP = { 'Content-Type': 'application/strategic-merge-patch+json' };

  it('a string where a map belongs is the 422 Kubernetes answers, and nothing changes', async () => {
    const created = await t.request('POST', CM, { body: { metadata: { name: 'smp-bad', labels: { a: 'b' } }, data: { k: 'v' } } });
    assert.equal(created.status, 201, created.body);
    const r = await t.request('PATCH', `${CM}/smp-bad`, { body: '{"metadata":{"labels":"x"}}', headers: SMP });
    assert.equal(r.status, 422, r.body);
    assert.deepEqual(r.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: ' "" is invalid: patch: Invalid value: "map[metadata:map[labels:x]]": cannot restore map from string',
      reason: 'Invalid',
      details: { causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "map[metadata:map[labels:x]]": cannot restore map from string', field: 'patch' }] },
      code: 422,
    });
    const read = await t.request('GET', `${CM}/smp-bad`);
    assert.deepEqual((read.json() as { metadata: { labels?: unknown } }).metadata.labels, { a: 'b' });
  });
});
