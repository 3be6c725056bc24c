import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../apimachinery/types.js';
import { LoopbackClient } from '../server/loopback.js';
import { Informer, keyOf, NAMESPACE_INDEX, splitKey, type CachedObject, type IndexFunc } from './informer.js';
import { deepCopy } from '../apimachinery/copy.js';
import { memoryTable, probeStore } from '../testing/memory-table.js';
import { eventually } from '../testing/wait.js';

const CM = { group: '', version: 'v1', resource: 'configmaps' };
const admin = { username: 'admin', groups: ['system:masters'] };

function recorder(): { log: string[]; handler: Parameters<Informer['addEventHandler']>[0] } {
  const log: string[] = [];
  return {
    log,
    handler: {
      onAdd: (o: KubeObject) => log.push(`add ${keyOf(o)}`),
      onUpdate: (a: KubeObject, b: KubeObject) => log.push(`update ${keyOf(b)} ${a.metadata?.resourceVersion}->${b.metadata?.resourceVersion}`),
      onDelete: (o: KubeObject) => log.push(`delete ${keyOf(o)}`),
    },
  };
}

test('keys', () => {
  assert.equal(keyOf({ metadata: { namespace: 'a', name: 'b' } }), 'a/b');
  assert.equal(keyOf({ metadata: { name: 'n' } }), 'n');
  assert.deepEqual(splitKey('a/b'), { namespace: 'a', name: 'b' });
  assert.deepEqual(splitKey('n'), { namespace: '', name: 'n' });
});

test('lists in pages, then follows the watch into its cache and handlers', async () => {
  const { table, close } = memoryTable();
  const configmaps = probeStore(table, CM);
  const client = new LoopbackClient(table, admin);
  for (const n of ['a', 'b', 'c']) await client.create(CM, 'ns', { metadata: { name: n } });
  const informer = new Informer(client, CM, { pageSize: 2 });
  const { log, handler } = recorder();
  informer.addEventHandler(handler);
  informer.start();
  try {
    await informer.waitForSync();
    assert.deepEqual(informer.listKeys().sort(), ['ns/a', 'ns/b', 'ns/c']);
    assert.equal(configmaps.calls.list, 2, 'two pages of two');
    await eventually(() => configmaps.watcherCount() === 1, 'the watch');
    await client.patch(CM, 'ns', 'a', { data: { k: 'v' } });
    await client.delete(CM, 'ns', 'b');
    await client.create(CM, 'other', { metadata: { name: 'd' } });
    await eventually(() => log.length === 6, 'three events');
    assert.deepEqual(log.slice(0, 3), ['add ns/a', 'add ns/b', 'add ns/c']);
    assert.match(log[3]!, /^update ns\/a \d+->\d+$/);
    assert.deepEqual(log.slice(4), ['delete ns/b', 'add other/d']);
    assert.deepEqual(informer.get('ns', 'a')?.data, { k: 'v' });
    assert.equal(informer.get('ns', 'b'), undefined);
    assert.equal(informer.lastSyncResourceVersion(), informer.get('other', 'd')?.metadata?.resourceVersion);
  } finally {
    await informer.stop();
  }
  assert.equal(configmaps.watcherCount(), 0, 'stop closes the watch');
  await close();
});

test('a watch that expired (410) leads to a fresh list whose differences reach the handlers', async () => {
  // The watch cache's clock: moving it past the history window forgets older events.
  let now = 0;
  const { table, close } = memoryTable(undefined, { cacherOptions: { now: () => now, historyWindowMs: 60_000 } });
  const configmaps = probeStore(table, CM);
  const client = new LoopbackClient(table, admin);
  await client.create(CM, 'ns', { metadata: { name: 'keep' } });
  await client.create(CM, 'ns', { metadata: { name: 'gone' } });
  const errors: unknown[] = [];
  const informer = new Informer(client, CM, { backoff: { initialMs: 5, maxMs: 20 }, onError: (e) => errors.push(e) });
  const { log, handler } = recorder();
  informer.addEventHandler(handler);
  informer.start();
  try {
    await informer.waitForSync();
    await eventually(() => configmaps.watcherCount() === 1, 'the watch');
    const listsBefore = configmaps.calls.list!;
    // Changes the informer misses while its watch is broken, and history moves past them.
    configmaps.pauseWatches();
    await client.delete(CM, 'ns', 'gone');
    now += 120_000;
    await client.create(CM, 'ns', { metadata: { name: 'new' } });
    configmaps.resumeWatches();
    await eventually(() => informer.listKeys().sort().join() === 'ns/keep,ns/new', 'the relist');
    assert.ok(configmaps.calls.list! > listsBefore, 'listed again after the 410');
    assert.deepEqual(errors, [], 'an expired watch is not an error');
    assert.ok(log.includes('delete ns/gone'));
    assert.ok(log.includes('add ns/new'));
    assert.ok(!log.some((l) => l.startsWith('update ns/keep')), 'unchanged objects are not reported');
  } finally {
    await informer.stop();
    await close();
  }
});

test('resync replays the cache as updates; late handlers hear the cache as adds', async () => {
  const { table, close } = memoryTable();
  const client = new LoopbackClient(table, admin);
  await client.create(CM, 'ns', { metadata: { name: 'a' } });
  const informer = new Informer(client, CM, { resyncMs: 20 });
  informer.start();
  try {
    await informer.waitForSync();
    const { log, handler } = recorder();
    informer.addEventHandler(handler);
    assert.deepEqual(log, ['add ns/a']);
    await eventually(() => log.length >= 2, 'a resync');
    assert.match(log[1]!, /^update ns\/a (\d+)->\1$/);
  } finally {
    await informer.stop();
    await close();
  }
});

test('readers and handlers share the cached object, frozen once when stored', async () => {
  const { table, close } = memoryTable();
  const client = new LoopbackClient(table, admin);
  await client.create(CM, 'ns', { metadata: { name: 'a', labels: { l: 'x' } }, data: { k: 'v' } });
  const informer = new Informer(client, CM);
  const seen: CachedObject[] = [];
  informer.addEventHandler({ onAdd: (o) => seen.push(o), onUpdate: (_old, o) => seen.push(o) });
  informer.start();
  try {
    await informer.waitForSync();
    const cached = informer.get('ns', 'a')!;
    assert.equal(cached, informer.get('ns', 'a'), 'no copy per read');
    assert.equal(cached, informer.getByKey('ns/a'));
    assert.equal(cached, informer.list()[0]);
    assert.equal(seen[0], cached, 'the handler got the cached object itself');
    assert.ok(Object.isFrozen(cached) && Object.isFrozen(cached.metadata) && Object.isFrozen(cached.metadata?.labels) && Object.isFrozen(cached.data));
    // Strict-mode code that forgets to copy fails instead of changing what everyone reads.
    assert.throws(() => {
      (cached.data as Record<string, string>).k = 'changed';
    }, TypeError);
    const copy = deepCopy(cached) as KubeObject;
    copy.data = { k: 'changed' };
    assert.deepEqual(informer.get('ns', 'a')?.data, { k: 'v' });
    // A later handler hears the same instance as an add.
    const late: CachedObject[] = [];
    informer.addEventHandler({ onAdd: (o) => late.push(o) });
    assert.equal(late[0], cached);
    await client.patch(CM, 'ns', 'a', { data: { k: 'w' } });
    await eventually(() => seen.length === 2, 'the update');
    assert.equal(seen[1], informer.get('ns', 'a'));
    assert.ok(Object.isFrozen(seen[1]!.data));
    assert.equal(informer.get('ns', 'missing'), undefined);
  } finally {
    await informer.stop();
    await close();
  }
});

test('indexes: namespace built in, more added at any time, kept up to date through updates, deletes and relists', async () => {
  let now = 0;
  const { table, close } = memoryTable(undefined, { cacherOptions: { now: () => now, historyWindowMs: 60_000 } });
  const configmaps = probeStore(table, CM);
  const client = new LoopbackClient(table, admin);
  await client.create(CM, 'a', { metadata: { name: 'x', labels: { tier: 'web' } } });
  await client.create(CM, 'a', { metadata: { name: 'y', labels: { tier: 'db' } } });
  await client.create(CM, 'b', { metadata: { name: 'x', labels: { tier: 'web' } } });
  const informer = new Informer(client, CM, { backoff: { initialMs: 5, maxMs: 20 } });
  const byTier: IndexFunc = (o) => (o.metadata?.labels?.tier ? [o.metadata.labels.tier] : []);
  const names = (objs: readonly CachedObject[]): string[] => objs.map(keyOf).sort();
  informer.start();
  try {
    await informer.waitForSync();
    assert.deepEqual(names(informer.byIndex(NAMESPACE_INDEX, 'a')), ['a/x', 'a/y']);
    assert.deepEqual(names(informer.byIndex(NAMESPACE_INDEX, 'c')), []);
    // Added after the first list: filled from the cache at once.
    informer.addIndexers({ tier: byTier });
    assert.deepEqual(names(informer.byIndex('tier', 'web')), ['a/x', 'b/x']);
    assert.equal(informer.byIndex('tier', 'web')[0], informer.get(informer.byIndex('tier', 'web')[0]!.metadata!.namespace!, 'x'), 'the cached objects themselves');
    informer.addIndexers({ tier: byTier }); // the same function again: nothing changes
    assert.throws(() => informer.addIndexers({ tier: (o) => [keyOf(o)] }), /index "tier" already exists/);
    assert.throws(() => informer.byIndex('missing', 'v'), /no index "missing"/);
    await eventually(() => configmaps.watcherCount() === 1, 'the watch');
    // An update moves the object between values; a delete takes it out.
    await client.patch(CM, 'a', 'x', { metadata: { labels: { tier: 'db' } } });
    await client.delete(CM, 'b', 'x');
    await client.create(CM, 'c', { metadata: { name: 'z', labels: { tier: 'web' } } });
    await eventually(() => informer.get('c', 'z') !== undefined, 'the new object');
    assert.deepEqual(names(informer.byIndex('tier', 'db')), ['a/x', 'a/y']);
    assert.deepEqual(names(informer.byIndex('tier', 'web')), ['c/z']);
    assert.deepEqual(informer.indexKeys(NAMESPACE_INDEX, 'b'), []);
    // Changes missed while the watch is broken reach the indexes through the relist.
    configmaps.pauseWatches();
    await client.delete(CM, 'c', 'z');
    await client.patch(CM, 'a', 'y', { metadata: { labels: null } });
    now += 120_000;
    await client.create(CM, 'a', { metadata: { name: 'w' } });
    configmaps.resumeWatches();
    await eventually(() => informer.get('a', 'w') !== undefined && informer.get('c', 'z') === undefined, 'the relist');
    assert.deepEqual(names(informer.byIndex('tier', 'web')), []);
    assert.deepEqual(names(informer.byIndex('tier', 'db')), ['a/x']);
    assert.deepEqual(names(informer.byIndex(NAMESPACE_INDEX, 'a')), ['a/w', 'a/x', 'a/y']);
    assert.deepEqual(informer.indexKeys(NAMESPACE_INDEX, 'c'), []);
  } finally {
    await informer.stop();
    await close();
  }
});

test('dropManagedFields: objects are held without managedFields, and an update made from one keeps the stored ones', async () => {
  const { table, close } = memoryTable();
  const client = new LoopbackClient(table, admin);
  await client.create(CM, 'ns', { metadata: { name: 'a' }, data: { k: 'v' } });
  const whole = new Informer(client, CM);
  const trimmed = new Informer(client, CM, { dropManagedFields: true });
  whole.start();
  trimmed.start();
  try {
    await Promise.all([whole.waitForSync(), trimmed.waitForSync()]);
    assert.ok((whole.get('ns', 'a')?.metadata?.managedFields?.length ?? 0) > 0, 'the server records managers');
    const held = trimmed.get('ns', 'a')!;
    assert.equal(held.metadata?.managedFields, undefined);
    assert.ok(Object.isFrozen(held.metadata));
    const before = (whole.get('ns', 'a')?.metadata?.managedFields ?? []).map((m) => m.manager);
    const updated = await client.update(CM, 'ns', { ...held, data: { k: 'w' } });
    const after = (updated.metadata?.managedFields ?? []).map((m) => m.manager);
    assert.ok(before.every((m) => after.includes(m)), `the stored managers are kept: ${JSON.stringify(before)} in ${JSON.stringify(after)}`);
    await eventually(() => trimmed.get('ns', 'a')?.metadata?.resourceVersion === updated.metadata?.resourceVersion, 'the update');
    assert.equal(trimmed.get('ns', 'a')?.metadata?.managedFields, undefined, 'events are trimmed too');
    assert.ok((whole.get('ns', 'a')?.metadata?.managedFields?.length ?? 0) > 0, 'another informer over the same watch cache keeps its own');
  } finally {
    await Promise.all([whole.stop(), trimmed.stop()]);
    await close();
  }
});
