import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import type { WatchEvent } from '../apimachinery/types.js';
import type { AdmissionAttributes, AdmissionChain } from '../admission/types.js';
import { LoopbackClient } from './loopback.js';
import { memoryTable, probeStore, type MemoryTable } from '../testing/memory-table.js';

const NS = { group: '', version: 'v1', resource: 'namespaces' };
const CM = { group: '', version: 'v1', resource: 'configmaps' };
const admin = { username: 'system:admin', groups: ['system:masters'] };

const tables: MemoryTable[] = [];
after(() => Promise.all(tables.map((t) => t.close())));
function served(): MemoryTable {
  const t = memoryTable();
  tables.push(t);
  return t;
}

test('create, get, list, update, patch and delete go to the table as the given user', async () => {
  const { table } = served();
  const configmaps = probeStore(table, CM);
  const client = new LoopbackClient(table, admin);
  const created = await client.create(CM, 'ns1', { metadata: { name: 'a' }, data: { k: 'v' } });
  assert.equal(created.metadata?.namespace, 'ns1');
  assert.equal((await client.get(CM, 'ns1', 'a')).data !== undefined, true);
  await client.create(CM, 'ns2', { metadata: { name: 'b', labels: { app: 'x' } } });
  assert.deepEqual((await client.list(CM, '')).items.map((o) => o.metadata?.name), ['a', 'b']);
  assert.deepEqual((await client.list(CM, '', { labelSelector: 'app=x' })).items.map((o) => o.metadata?.name), ['b']);

  const updated = await client.update(CM, 'ns1', { ...created, data: { k: 'w' } });
  assert.deepEqual(updated.data, { k: 'w' });
  await assert.rejects(client.update(CM, 'ns1', created), (e: unknown) => e instanceof ApiError && e.code === 409);

  const patched = await client.patch(CM, 'ns1', 'a', { data: { k: null, n: '1' }, metadata: { labels: { p: 'q' } } });
  assert.deepEqual(patched.data, { n: '1' });
  assert.deepEqual(patched.metadata?.labels, { p: 'q' });
  await assert.rejects(client.patch(CM, 'ns1', 'missing', {}), (e: unknown) => e instanceof ApiError && e.code === 404 && e.message === 'configmaps "missing" not found');

  await client.delete(CM, 'ns1', 'a');
  await assert.rejects(client.get(CM, 'ns1', 'a'), (e: unknown) => e instanceof ApiError && e.code === 404);
  await client.deleteCollection(CM, 'ns2');
  assert.equal((await client.list(CM, '')).items.length, 0);
  assert.equal(configmaps.calls.deleteCollection, 1);
});

test('unknown resources are 404 and missing verbs 405', async () => {
  const { table } = served();
  const client = new LoopbackClient(table, admin);
  await assert.rejects(client.get({ group: 'x', version: 'v1', resource: 'things' }, '', 'a'), (e: unknown) => e instanceof ApiError && e.code === 404);
  await assert.rejects(client.deleteCollection(NS, ''), (e: unknown) => e instanceof ApiError && e.code === 405);
});

test('watch yields events until the signal aborts', async () => {
  const { table } = served();
  const client = new LoopbackClient(table, admin);
  const list = await client.list(CM, 'ns1');
  const ac = new AbortController();
  const seen: WatchEvent[] = [];
  const done = (async () => {
    for await (const e of client.watch(CM, 'ns1', { resourceVersion: list.metadata.resourceVersion }, ac.signal)) {
      seen.push(e);
      if (seen.length === 2) ac.abort();
    }
  })();
  await client.create(CM, 'ns2', { metadata: { name: 'elsewhere' } });
  await client.create(CM, 'ns1', { metadata: { name: 'a' } });
  await client.patch(CM, 'ns1', 'a', { data: { x: 'y' } });
  await done;
  assert.deepEqual(seen.map((e) => [e.type, e.object.metadata?.name]), [['ADDED', 'a'], ['MODIFIED', 'a']]);
});

test('an admission chain runs: mutation before the store, validation inside it, rejection stops the write', async () => {
  const { table } = served();
  const calls: string[] = [];
  const chain: AdmissionChain = {
    async admit(a: AdmissionAttributes) {
      calls.push(`admit ${a.operation} ${a.kind.kind} ${a.namespace}/${a.name} old=${a.oldObject ? 'yes' : 'no'}`);
      if (a.object) a.object.metadata = { ...a.object.metadata, labels: { admitted: 'true' } };
    },
    async validate(a: AdmissionAttributes) {
      calls.push(`validate ${a.operation} ${a.name}`);
      if (a.object?.metadata?.name === 'bad') throw new ApiError(403, 'Forbidden', 'no');
    },
  };
  const client = new LoopbackClient(table, admin, { admission: chain });
  const created = await client.create(CM, 'ns1', { metadata: { name: 'a' } });
  assert.deepEqual(created.metadata?.labels, { admitted: 'true' });
  await assert.rejects(client.create(CM, 'ns1', { metadata: { name: 'bad' } }), (e: unknown) => e instanceof ApiError && e.code === 403);
  await assert.rejects(client.get(CM, 'ns1', 'bad'), (e: unknown) => e instanceof ApiError && e.code === 404);
  await client.patch(CM, 'ns1', 'a', { data: { a: 'b' } });
  await client.delete(CM, 'ns1', 'a');
  assert.deepEqual(calls, [
    'admit CREATE ConfigMap ns1/a old=no',
    'validate CREATE a',
    'admit CREATE ConfigMap ns1/bad old=no',
    'validate CREATE bad',
    'admit UPDATE ConfigMap ns1/a old=yes',
    'validate UPDATE a',
    'admit DELETE ConfigMap ns1/a old=no',
    'validate DELETE a',
  ]);
});

test('the next page of a list lets the event loop turn first, so that walking many pages does not hold I/O; a first page does not wait', async () => {
  const { table } = served();
  const client = new LoopbackClient(table, admin);
  for (let i = 0; i < 3; i++) await client.create(CM, 'ns1', { metadata: { name: `c${i}` } });
  // A callback of the event loop's check phase: it runs before the list resolves only if the list waited a turn.
  let turned = false;
  setImmediate(() => (turned = true));
  const first = await client.list(CM, 'ns1', { limit: 1 });
  assert.equal(first.items.length, 1);
  assert.equal(turned, false);
  setImmediate(() => (turned = true));
  const next = await client.list(CM, 'ns1', { limit: 1, continue: first.metadata.continue });
  assert.equal(next.items.length, 1);
  assert.equal(turned, true);
});
