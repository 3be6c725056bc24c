// The object history in the server's store: written in batches off the request path, read back
// at start, batch keys removed once retention drops all they hold; across a restart on SQLite,
// and shared through etcd when `etcd` is installed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { WriteRecord } from '../rest/index.js';
import { MemoryStorage } from '../storage/memory.js';
import { etcdSkip, startEtcd } from '../testing/etcd.js';
import { startAuthTestServer, type AuthTestServer } from '../testing/server.js';
import { HISTORY_PREFIX, HistoryPersistence } from './persist.js';
import { HistoryStore } from './store.js';

function write(name: string, uid: string, rv: number): WriteRecord {
  return {
    group: '',
    resource: 'configmaps',
    apiVersion: 'v1',
    kind: 'ConfigMap',
    verb: rv === 1 ? 'create' : 'update',
    user: { username: 'u', groups: [] },
    fieldManager: 'm',
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', uid, resourceVersion: String(rv) }, data: { rv: String(rv) } },
  };
}

it('writes revisions in batches and reads them back; removes a batch once nothing in it is kept', async () => {
  const storage = new MemoryStorage();
  let now = 1000;
  const first = new HistoryStore({ retention: { maxCount: 2 }, now: () => now });
  const p1 = new HistoryPersistence(storage, first, { flushMs: 60_000 });
  await p1.load();
  for (let rv = 1; rv <= 3; rv++) first.record(write('a', 'u1', rv));
  first.record(write('b', 'u2', 4));
  // Nothing is written on the request path.
  assert.equal((await storage.list(HISTORY_PREFIX)).items.length, 0);
  await p1.flush();
  const batches = (await storage.list(HISTORY_PREFIX)).items;
  assert.equal(batches.length, 1);

  // Another store reads the same revisions (rv 1 was dropped before the flush, so not written).
  const second = new HistoryStore({ retention: { maxCount: 2 }, now: () => now });
  await new HistoryPersistence(storage, second).load();
  assert.deepEqual(second.byTargetUid('u1')!.revisions.map((r) => [r.resourceVersion, r.fieldManager, r.operation]), [
    [2, 'm', 'Update'],
    [3, 'm', 'Update'],
  ]);
  assert.equal(second.byTargetUid('u2')!.target.name, 'b');

  // Once retention drops everything a batch holds, its key goes.
  first.record(write('a', 'u1', 5));
  first.record(write('a', 'u1', 6));
  first.record(write('b', 'u2', 7));
  first.record(write('b', 'u2', 8));
  await p1.stop();
  await new Promise((r) => setImmediate(r));
  const keys = (await storage.list(HISTORY_PREFIX)).items.map((i) => i.key);
  assert.equal(keys.length, 1);
  assert.notEqual(keys[0], batches[0]!.key);
  now += 1;
});

it('outlives the compaction of the watch window', async () => {
  const storage = new MemoryStorage();
  const first = new HistoryStore({ retention: { maxCount: 5 } });
  const p = new HistoryPersistence(storage, first);
  await p.load();
  first.record(write('a', 'u1', 1));
  await p.stop();
  // Other writes, then everything up to now compacted.
  for (let i = 0; i < 5; i++) await storage.create(`/registry/core/configmaps/ns/x${i}`, Buffer.from('{}'));
  await storage.compact(await storage.revision());
  const second = new HistoryStore({ retention: { maxCount: 5 } });
  await new HistoryPersistence(storage, second).load();
  assert.deepEqual(second.byTargetUid('u1')!.revisions.map((r) => r.resourceVersion), [1]);
});

describe('across a restart on SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-history-sqlite-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the revisions of live and deleted objects', async () => {
    let s: AuthTestServer = await startAuthTestServer(['--storage-backend=sqlite'], { dataDir: dir });
    try {
      assert.equal((await s.request('POST', '/api/v1/namespaces/default/configmaps?fieldManager=one', s.admin, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept' }, data: { a: '1' } })).status, 201);
      assert.equal((await s.request('PUT', '/api/v1/namespaces/default/configmaps/kept?fieldManager=two', s.admin, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept' }, data: { a: '2' } })).status, 200);
      assert.equal((await s.request('POST', '/api/v1/namespaces/default/configmaps', s.admin, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gone' } })).status, 201);
      assert.equal((await s.request('DELETE', '/api/v1/namespaces/default/configmaps/gone', s.admin)).status, 200);
    } finally {
      await s.running.stop();
    }
    s = await startAuthTestServer(['--storage-backend=sqlite'], { dataDir: dir });
    try {
      const get = async (name: string) => {
        const r = await s.request('GET', `/apis/history.orch.io/v1/namespaces/default/revisions?fieldSelector=${encodeURIComponent(`target.resource=configmaps,target.name=${name}`)}`, s.admin);
        assert.equal(r.status, 200, r.text);
        return (r.json.items as { operation: string; fieldManager?: string; revision: number; patch: unknown[] }[]).map((i) => [i.revision, i.operation, i.fieldManager]);
      };
      assert.deepEqual(await get('kept'), [
        [1, 'Create', 'one'],
        [2, 'Update', 'two'],
      ]);
      assert.deepEqual((await get('gone')).map((x) => x[1]), ['Create', 'Delete']);
    } finally {
      await s.running.stop();
    }
  });
});

describe('on etcd', { skip: etcdSkip() }, () => {
  it('two API servers on one etcd read each other\'s history after a restart', async () => {
    const etcd = await startEtcd();
    const prefix = `/history-test-${Date.now()}`;
    const args = ['--storage-backend=etcd', `--etcd-servers=${etcd.clientUrl}`, `--etcd-prefix=${prefix}`];
    try {
      let s = await startAuthTestServer(args);
      try {
        assert.equal((await s.request('POST', '/api/v1/namespaces/default/configmaps?fieldManager=etcd-writer', s.admin, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'e' } })).status, 201);
      } finally {
        await s.stop();
      }
      s = await startAuthTestServer(args);
      try {
        const r = await s.request('GET', `/apis/history.orch.io/v1/namespaces/default/revisions?fieldSelector=${encodeURIComponent('target.resource=configmaps,target.name=e')}`, s.admin);
        assert.equal(r.status, 200, r.text);
        assert.deepEqual((r.json.items as { fieldManager: string }[]).map((i) => i.fieldManager), ['etcd-writer']);
      } finally {
        await s.stop();
      }
    } finally {
      await etcd.stop();
    }
  });
});
