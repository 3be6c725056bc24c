import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, WatchEvent } from '../apimachinery/types.js';
import { MemoryStorage, createCacher } from '../storage/index.js';
import { EventEncodings, RecentEventMemo } from '../codec/encoding-memo.js';
import type { Item } from '../storage/index.js';
import { translateEvent, watchStream } from './watch.js';
import { sharedFrame } from '../codec/watch-frame.js';
import type { GenericStore } from './store.js';
import { buildResourceTable, type DefaultResourceTable } from './table.js';
import { TEST_GROUP, requestContext, widgetDefinition } from '../testing/registry.js';

let storage: MemoryStorage;
let table: DefaultResourceTable;
let widgets: GenericStore;
const ctx = requestContext();

before(() => {
  storage = new MemoryStorage();
  // Periodic bookmarks far apart, so that only the one before the timeout can show up.
  table = buildResourceTable([widgetDefinition()], storage, { waitTimeoutMs: 200, cacherOptions: { bookmarkIntervalMs: 600_000 } });
  widgets = table.lookup({ group: TEST_GROUP, version: 'v1' }, 'widgets') as GenericStore;
});

after(async () => {
  await table.stop();
  await storage.close();
});

function widget(name: string): KubeObject {
  return { apiVersion: `${TEST_GROUP}/v1`, kind: 'Widget', metadata: { name }, spec: { size: 1 } };
}

test('a watch that asked for bookmarks gets one 2 seconds before its timeout, at the newest revision', async () => {
  await widgets.create(ctx, 'mine', widget('a'), { dryRun: false });
  const rv = (await widgets.list(ctx, 'mine', {})).metadata.resourceVersion!;
  const stream = await widgets.watch(ctx, 'mine', { resourceVersion: rv, allowWatchBookmarks: true, timeoutSeconds: 2.4 });
  // A change elsewhere moves the revision without an event for this watcher.
  const other = await widgets.create(ctx, 'other', widget('b'), { dryRun: false });
  const events: WatchEvent[] = [];
  for await (const ev of stream) {
    events.push(ev);
    if (events.length === 1) break;
  }
  assert.equal(events[0]?.type, 'BOOKMARK');
  assert.equal(events[0]?.object.metadata?.resourceVersion, other.metadata?.resourceVersion);
});

test('a short watch or one without bookmarks gets no early bookmark', async () => {
  const rv = (await widgets.list(ctx, 'mine', {})).metadata.resourceVersion!;
  const quiet = await widgets.watch(ctx, 'mine', { resourceVersion: rv, allowWatchBookmarks: false, timeoutSeconds: 2.2 });
  const seen: string[] = [];
  for await (const ev of quiet) seen.push(ev.type);
  assert.deepEqual(seen, []);
});

test('watchers of one served version share each event\'s frame; each gets its own object when it reads it', async () => {
  const rv = (await widgets.list(ctx, 'shared', {})).metadata.resourceVersion!;
  const ac = new AbortController();
  const open = (opts: { labelSelector?: string } = {}) => widgets.watch({ ...ctx, signal: ac.signal }, 'shared', { resourceVersion: rv, ...opts });
  const streams = [await open(), await open(), await open({ labelSelector: 'keep=yes' })];
  const labelled = { ...widget('s'), metadata: { name: 's', labels: { keep: 'yes' } } };
  await widgets.create(ctx, 'shared', labelled, { dryRun: false });
  await widgets.update(ctx, 'shared', 's', (cur) => ({ ...(cur as KubeObject), metadata: { ...cur?.metadata, labels: { keep: 'no' } } }), { dryRun: false });
  const firsts = await Promise.all(streams.map(async (s) => {
    const got: WatchEvent[] = [];
    for await (const ev of s) {
      got.push(ev);
      if (got.length === 2) break;
    }
    return got;
  }));
  ac.abort();
  let framed = 0;
  const frame = (ev: WatchEvent) => () => (framed++, Buffer.from(JSON.stringify({ type: ev.type, object: ev.object })));
  const bytes = firsts.map((got) => got.map((ev) => sharedFrame(ev, 'json', frame(ev)).toString()));
  // ADDED and MODIFIED once for both plain watchers; the selector's watcher shares the ADDED
  // and gets its own DELETED (the object stopped matching).
  assert.deepEqual(firsts.map((got) => got.map((ev) => ev.type)), [['ADDED', 'MODIFIED'], ['ADDED', 'MODIFIED'], ['ADDED', 'DELETED']]);
  assert.equal(framed, 3);
  assert.equal(bytes[0]![0], bytes[2]![0]);
  assert.deepEqual(bytes[0], bytes[1]);
  assert.equal((JSON.parse(bytes[2]![1]!) as WatchEvent).object.metadata?.labels?.keep, 'yes', 'DELETED carries the last matching state');
  // Objects read from events are each watcher's own.
  const [a, b] = [firsts[0]![1]!.object, firsts[1]![1]!.object];
  assert.notEqual(a, b);
  assert.deepEqual(a, b);
  a.metadata!.name = 'changed';
  assert.equal(b.metadata?.name, 's');
});

test('event encodings are kept for the most recent events only, within a budget of bytes', () => {
  // Two bytes: two one-byte encodings.
  const memo = new EventEncodings(2);
  const sources = [{}, {}, {}];
  let encoded = 0;
  const enc = () => (encoded++, new Uint8Array([encoded]));
  for (const s of sources) memo.get(s, 'k', enc);
  memo.get(sources[2]!, 'k', enc);
  memo.get(sources[1]!, 'k', enc);
  assert.equal(encoded, 3);
  memo.get(sources[0]!, 'k', enc);
  assert.equal(encoded, 4, 'the oldest was forgotten');
  memo.get(sources[2]!, 'other', enc);
  assert.equal(encoded, 5, 'another encoding of a kept event');
});

test('watchers with selectors test one shared decode of each event, and answer with their own object', () => {
  const memo = new RecentEventMemo<KubeObject>(1024 * 1024, () => 1);
  let decoded = 0;
  const decode = (item: Item): KubeObject => (decoded++, JSON.parse(Buffer.from(item.value).toString()) as KubeObject);
  const item: Item = { key: '/k/a', value: Buffer.from(JSON.stringify({ ...widget('a'), metadata: { name: 'a', labels: { keep: 'yes' } } })), createRevision: 3, modRevision: 3 };
  const opts = {
    decode,
    toExternal: (obj: KubeObject, rev: number) => ({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(rev) } }),
    filter: (obj: KubeObject) => obj.metadata?.labels?.keep === 'yes',
    selectable: (it: Item) => memo.get(it, '', () => decode(it)),
  };
  const events = [translateEvent({ type: 'put', key: item.key, revision: 3, item }, opts), translateEvent({ type: 'put', key: item.key, revision: 3, item }, opts)];
  assert.equal(decoded, 1, 'one decode for both selectors');
  assert.deepEqual(events.map((e) => e?.type), ['ADDED', 'ADDED']);
  const [a, b] = [events[0]!.object, events[1]!.object];
  assert.equal(decoded, 3, 'each answer is built from its own decode');
  assert.notEqual(a, b);
  assert.equal(a.metadata?.resourceVersion, '3');
  const missed = translateEvent({ type: 'put', key: item.key, revision: 3, item }, { ...opts, filter: () => false });
  assert.equal(missed, undefined);
  assert.equal(decoded, 3);
});

test('a bookmark sent to many watchers is framed once for all of them; each reads its own object', async () => {
  const store = new MemoryStorage();
  const cache = createCacher(store, '/registry/marks/', { bookmarkIntervalMs: 600_000 });
  try {
    await cache.ready();
    const encodings = new EventEncodings();
    let built = 0;
    const ac = new AbortController();
    const open = () =>
      watchStream({
        cacher: cache,
        prefix: '/registry/marks/',
        start: cache.revision(),
        initial: [],
        signal: ac.signal,
        bookmarks: true,
        decode: (item) => JSON.parse(Buffer.from(item.value).toString()) as KubeObject,
        toExternal: (obj) => obj,
        bookmark: (revision) => (built++, { kind: 'Mark', metadata: { resourceVersion: String(revision) } }),
        encodings,
      }).cursor!();
    const cursors = [open(), open(), open()];
    // Each opens the cache's watch; a wait resolves once it is open.
    await Promise.all(cursors.map((c) => new Promise<void>((resolve) => c.wait(resolve))));
    cache.bookmarkNow();
    const marks = cursors.map((c) => c.poll()!);
    assert.deepEqual(marks.map((m) => m.type), ['BOOKMARK', 'BOOKMARK', 'BOOKMARK']);
    assert.equal(built, 0, 'not built until read');
    let framed = 0;
    const bytes = marks.map((m) => sharedFrame(m, 'json', () => (framed++, Buffer.from(JSON.stringify(m.object)))));
    assert.equal(framed, 1);
    assert.equal(bytes[0], bytes[2]);
    assert.notEqual(marks[0]!.object, marks[1]!.object);
    assert.deepEqual(marks[0]!.object, marks[1]!.object);
    for (const c of cursors) c.close();
    ac.abort();
  } finally {
    await cache.stop();
    await store.close();
  }
});
