// The CacheDelegator on its own: which source answers each read (a scripted watch cache
// that holds a different state than storage makes the choice visible), the waits a read
// makes first, paging over storage with a filter, and the 410s of compacted revisions.
// The Store's list and watch semantics end to end are in store.test.ts and watch.test.ts.
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../apimachinery/errors.js';
import type { KubeObject, WatchEvent } from '../apimachinery/types.js';
import {
  MemoryStorage,
  TooLargeResourceVersionError,
  type CacheEvent,
  type CacheListResult,
  type Cacher,
  type Item,
  type CacheCursor,
} from '../storage/index.js';
import { CacheDelegator, listSource, type ReadView } from './cache-delegator.js';
import { decodeContinue } from './continue.js';

const PREFIX = '/registry/testing/things/';

/** A store whose revision is a round trip away, as etcd's is. */
class RemoteRevisionStorage extends MemoryStorage {
  override readonly localRevision: boolean = false;
}

/** A watch cache with a fixed state at `rev`; it records the waits a read asks for. */
class ScriptedCacher implements Cacher {
  calls: string[] = [];
  items: Item[] = [];
  rev = 0;
  /** Revisions beyond this one are never reached. */
  reachable = Number.MAX_SAFE_INTEGER;

  async ready(): Promise<void> {
    this.calls.push('ready');
  }
  revision(): number {
    return this.rev;
  }
  /** The revision of the newest change to `items`. */
  changed = 0;
  holdsRevision(revision: number): boolean {
    return this.changed <= revision && revision <= this.rev;
  }
  async waitForRevision(revision: number): Promise<void> {
    this.calls.push(`waitForRevision ${revision}`);
    if (revision > this.reachable) throw new TooLargeResourceVersionError(revision, this.rev);
  }
  /** The store's revision as waitForFresh would learn it; beyond `reachable` the wait times out. */
  storeRev = 0;
  async waitForFresh(): Promise<number> {
    this.calls.push('waitForFresh');
    if (this.storeRev > this.reachable) throw new TooLargeResourceVersionError(this.storeRev, this.rev);
    return this.rev;
  }
  get(key: string): Item | undefined {
    return this.items.find((i) => i.key === key);
  }
  list(opts: { prefix?: string; startKey?: string; limit?: number } = {}): CacheListResult {
    const all = this.items.filter((i) => i.key.startsWith(opts.prefix ?? PREFIX) && (opts.startKey === undefined || i.key >= opts.startKey));
    const items = opts.limit !== undefined && opts.limit > 0 ? all.slice(0, opts.limit) : all;
    const remaining = all.length - items.length;
    return { items, revision: this.rev, more: remaining > 0, remaining };
  }
  // eslint-disable-next-line require-yield
  async *watch(_prefix: string, _after: number, signal: AbortSignal): AsyncGenerator<CacheEvent> {
    if (signal.aborted) return;
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
  }
  /** A watch that never has an event, until closed. */
  async cursor(): Promise<CacheCursor> {
    let ended = false;
    let wake: (() => void) | undefined;
    return {
      take: () => undefined,
      pending: () => false,
      get ended() {
        return ended;
      },
      wait: (w) => (ended ? w() : (wake = w)),
      close: () => {
        ended = true;
        wake?.();
      },
    };
  }
  async stop(): Promise<void> {}
}

const view: ReadView = {
  decode: (item) => JSON.parse(Buffer.from(item.value).toString('utf8')) as KubeObject,
  toExternal: (obj, revision) => ({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(revision) } }),
  bookmark: (revision) => ({ apiVersion: 'v1', kind: 'Thing', metadata: { resourceVersion: String(revision) } }),
};

function thing(name: string, color: string): Uint8Array {
  return Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Thing', metadata: { name }, color }));
}

function cached(name: string, modRevision: number): Item {
  return { key: `${PREFIX}${name}`, value: thing(name, 'cached'), createRevision: modRevision, modRevision };
}

function names(page: { items: KubeObject[] }): string[] {
  return page.items.map((o) => `${o.metadata?.name ?? ''}:${String(o.color)}`);
}

async function rejects(p: Promise<unknown>, code: number, message: RegExp): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.code, code);
    assert.match(e.message, message);
    return e;
  }
  assert.fail('expected a rejection');
}

test('listSource: continue and exact reads go to storage, the rest to the cache', () => {
  assert.equal(listSource({ continue: 'x' }), 'continue');
  assert.equal(listSource({ resourceVersion: '5', resourceVersionMatch: 'Exact' }), 'exact');
  assert.equal(listSource({ resourceVersion: '5', limit: 2 }), 'exact');
  assert.equal(listSource({ resourceVersion: '5', limit: 2, resourceVersionMatch: 'NotOlderThan' }), 'cache');
  assert.equal(listSource({ resourceVersion: '0', limit: 2 }), 'cache');
  assert.equal(listSource({ limit: 2 }), 'cache');
  assert.equal(listSource({ resourceVersion: '5' }), 'cache');
  assert.equal(listSource({ resourceVersion: '5', limit: 0 }), 'cache');
});

describe('CacheDelegator', () => {
  let storage: MemoryStorage;
  let cacher: ScriptedCacher;
  let reads: CacheDelegator;

  beforeEach(async () => {
    storage = new MemoryStorage();
    for (const [i, name] of ['a', 'b', 'c', 'd', 'e'].entries()) await storage.create(`${PREFIX}${name}`, thing(name, i % 2 === 0 ? 'red' : 'blue'));
    cacher = new ScriptedCacher();
    cacher.items = [cached('a', 1), cached('b', 2)];
    cacher.rev = 2;
    reads = new CacheDelegator({
      storage,
      cacher,
      view,
      resourcePrefix: '/registry/testing/',
      groupKind: { group: 'testing', kind: 'Thing' },
      qualified: { group: 'testing', resource: 'things' },
      waitTimeoutMs: 10,
    });
  });

  afterEach(async () => {
    await storage.close();
  });

  test('get: unset is a consistent read of the cache where storage knows its revision in process; 0 and N read the cache, N once it has N', async () => {
    assert.equal((await reads.get(`${PREFIX}b`))?.value.toString(), cached('b', 2).value.toString());
    assert.equal(await reads.get(`${PREFIX}e`), undefined, 'the cache answers, not storage');
    assert.deepEqual(cacher.calls, ['ready', 'waitForFresh', 'ready', 'waitForFresh']);
    cacher.calls = [];
    assert.equal(await reads.get(`${PREFIX}e`, '0'), undefined);
    assert.deepEqual(cacher.calls, ['ready']);
    cacher.calls = [];
    assert.equal((await reads.get(`${PREFIX}b`, '2'))?.modRevision, 2);
    assert.deepEqual(cacher.calls, ['ready', 'waitForRevision 2']);
    cacher.reachable = 2;
    await rejects(reads.get(`${PREFIX}b`, '9'), 504, /Too large resource version: 9, current: 2/);
    const bad = await rejects(reads.get(`${PREFIX}b`, 'x', 'b'), 422, /Thing.testing "b" is invalid/);
    assert.equal(bad.status.details?.name, 'b');
  });

  test('get: unset falls back to storage when the cache cannot catch up in time', async () => {
    cacher.storeRev = 5;
    cacher.reachable = 2;
    assert.equal((await reads.get(`${PREFIX}e`))?.modRevision, 5, 'storage answers');
    assert.deepEqual(cacher.calls, ['ready', 'waitForFresh']);
    // A list keeps its 504: it has no cheaper source.
    await rejects(reads.list(PREFIX, {}), 504, /Too large resource version: 5, current: 2/);
  });

  test('get: unset reads storage without waiting where its revision is a round trip (etcd)', async () => {
    const remote = new RemoteRevisionStorage();
    for (const [i, name] of ['a', 'b', 'c', 'd', 'e'].entries()) await remote.create(`${PREFIX}${name}`, thing(name, i % 2 === 0 ? 'red' : 'blue'));
    const direct = new CacheDelegator({
      storage: remote,
      cacher,
      view,
      resourcePrefix: '/registry/testing/',
      groupKind: { group: 'testing', kind: 'Thing' },
      qualified: { group: 'testing', resource: 'things' },
      waitTimeoutMs: 10,
    });
    try {
      assert.equal((await direct.get(`${PREFIX}e`))?.modRevision, 5);
      assert.deepEqual(cacher.calls, []);
    } finally {
      await remote.close();
    }
  });

  test('list: unset is a consistent read of the cache; 0 any state, whole; N not older than N, paged', async () => {
    assert.deepEqual(names(await reads.list(PREFIX, {})), ['a:cached', 'b:cached']);
    assert.deepEqual(cacher.calls, ['ready', 'waitForFresh']);
    cacher.calls = [];
    const any = await reads.list(PREFIX, { resourceVersion: '0', limit: 1 });
    assert.deepEqual(names(any), ['a:cached', 'b:cached']);
    assert.deepEqual(any.metadata, { resourceVersion: '2' });
    assert.deepEqual(cacher.calls, ['ready']);
    cacher.calls = [];
    const notOlder = await reads.list(PREFIX, { resourceVersion: '1', resourceVersionMatch: 'NotOlderThan', limit: 1 });
    assert.deepEqual(names(notOlder), ['a:cached']);
    assert.deepEqual(cacher.calls, ['ready', 'waitForRevision 1']);
    assert.equal(notOlder.metadata.remainingItemCount, 1);
    assert.deepEqual(decodeContinue(notOlder.metadata.continue ?? ''), { revision: 2, start: 'things/a\u0000' });
  });

  test('list: an unfiltered cache list builds its items when pulled, from the snapshot taken', async () => {
    const page = await reads.list(PREFIX, {});
    assert.deepEqual(page.metadata, { resourceVersion: '2' });
    assert.deepEqual(Object.keys(page), ['metadata', 'items'], 'lazy is not enumerable: never encoded');
    assert.equal(page.lazy?.count, 2);
    // The cache moves on; the answer stays the snapshot's.
    cacher.items = [cached('z', 3)];
    const first = page.lazy!.at(0) as KubeObject;
    assert.deepEqual([first.metadata?.name, first.metadata?.resourceVersion], ['a', '1']);
    assert.notEqual(page.lazy!.at(0), first, 'a new object on every pull');
    assert.equal((page.lazy!.at(1) as KubeObject).metadata?.name, 'b');
    // Read as an array, they are built once, from the same snapshot.
    assert.deepEqual(names(page), ['a:cached', 'b:cached']);
    assert.equal(page.items, page.items);
    cacher.items = [cached('a', 1), cached('b', 2)];
    // A page is taken from the cache on demand too, with its continue token and count.
    const paged = await reads.list(PREFIX, { limit: 1 });
    assert.equal(paged.lazy?.count, 1);
    assert.equal(paged.metadata.remainingItemCount, 1);
    assert.deepEqual(decodeContinue(paged.metadata.continue ?? ''), { revision: 2, start: 'things/a\u0000' });
    assert.equal((await reads.list(PREFIX, { limit: 2 })).lazy?.count, 2);
    // A selector or storage: built whole as before.
    assert.equal((await reads.list(PREFIX, {}, (o) => o.metadata?.name === 'b')).lazy, undefined);
    assert.equal((await reads.list(PREFIX, { resourceVersion: '2', resourceVersionMatch: 'Exact' })).lazy, undefined);
  });

  test('list: exact and continued reads come from storage at the revision', async () => {
    await storage.update(`${PREFIX}a`, thing('a', 'green'));
    const exact = await reads.list(PREFIX, { resourceVersion: '5', resourceVersionMatch: 'Exact', limit: 2 });
    assert.deepEqual(names(exact), ['a:red', 'b:blue']);
    assert.deepEqual(cacher.calls, ['ready', 'waitForRevision 5']);
    assert.equal(exact.metadata.resourceVersion, '5');
    assert.equal(exact.metadata.remainingItemCount, 3);
    cacher.calls = [];
    const rest = await reads.list(PREFIX, { continue: exact.metadata.continue, limit: 10 });
    assert.deepEqual(names(rest), ['c:red', 'd:blue', 'e:red']);
    assert.deepEqual(rest.metadata, { resourceVersion: '5' });
    assert.deepEqual(cacher.calls, []);
    await rejects(reads.list(PREFIX, { continue: exact.metadata.continue, resourceVersion: '5' }), 400, /specifying resource version is not allowed when using continue/);
  });

  test('list: a continue at the revision the cache stands at reads the cache, not storage', async () => {
    cacher.items = [cached('a', 1), cached('b', 2), cached('c', 2)];
    const first = await reads.list(PREFIX, { limit: 1 });
    assert.deepEqual(names(first), ['a:cached']);
    cacher.calls = [];
    const rest = await reads.list(PREFIX, { continue: first.metadata.continue, limit: 1 });
    assert.deepEqual(names(rest), ['b:cached'], 'the cache, whose items differ from the store\'s here');
    assert.equal(rest.metadata.remainingItemCount, 1);
    const last = await reads.list(PREFIX, { continue: rest.metadata.continue, limit: 1 });
    assert.deepEqual(names(last), ['c:cached']);
    assert.deepEqual(last.metadata, { resourceVersion: '2' });
    // Writes elsewhere in the store move the cache's revision on, not its items: the pages still come from it.
    cacher.rev = 3;
    assert.deepEqual(names(await reads.list(PREFIX, { continue: first.metadata.continue, limit: 1 })), ['b:cached']);
    // Once the items change after the token's revision, the pages come from storage at it.
    cacher.changed = 3;
    assert.deepEqual(names(await reads.list(PREFIX, { continue: first.metadata.continue, limit: 1 })), ['b:blue']);
    cacher.changed = 0;
  });

  test('list: the filter runs during the scan, across storage pages, and hides the remaining count', async () => {
    const red = (obj: KubeObject) => obj.color === 'red';
    const first = await reads.list(PREFIX, { resourceVersion: '5', resourceVersionMatch: 'Exact', limit: 2 }, red);
    assert.deepEqual(names(first), ['a:red', 'c:red']);
    assert.equal(first.metadata.remainingItemCount, undefined);
    assert.ok(first.metadata.continue);
    const second = await reads.list(PREFIX, { continue: first.metadata.continue, limit: 2 }, red);
    assert.deepEqual(names(second), ['e:red']);
    assert.equal(second.metadata.continue, undefined);
  });

  test('a filter that says which keys may match decodes only those: cache lists, storage pages, a watch\'s initial state', async () => {
    let decoded: string[] = [];
    const counting: ReadView = { ...view, decode: (item) => (decoded.push(item.key.slice(PREFIX.length)), view.decode(item)) };
    const byName = new CacheDelegator({
      storage,
      cacher,
      view: counting,
      resourcePrefix: '/registry/testing/',
      groupKind: { group: 'testing', kind: 'Thing' },
      qualified: { group: 'testing', resource: 'things' },
      waitTimeoutMs: 10,
    });
    cacher.items = ['a', 'b', 'c', 'd', 'e'].map((n, i) => cached(n, i + 1));
    cacher.rev = 5;
    const named = Object.assign((obj: KubeObject) => obj.metadata?.name === 'c', { keyMayMatch: (key: string) => key.endsWith('/c') });
    assert.deepEqual(names(await byName.list(PREFIX, {}, named)), ['c:cached']);
    assert.deepEqual(decoded, ['c']);
    decoded = [];
    assert.deepEqual(names(await byName.list(PREFIX, { resourceVersion: '5', resourceVersionMatch: 'Exact', limit: 2 }, named)), ['c:red']);
    assert.deepEqual(decoded, ['c']);
    decoded = [];
    const ac = new AbortController();
    const events = (await byName.watch(PREFIX, { signal: ac.signal }, named))[Symbol.asyncIterator]();
    const first = await events.next();
    ac.abort();
    assert.equal((first.value as WatchEvent).object.metadata?.name, 'c');
    assert.deepEqual(decoded, ['c']);
  });

  test('list: a compacted revision is 410; a compacted continue hands out a token at the latest revision', async () => {
    const page = await reads.list(PREFIX, { resourceVersion: '3', resourceVersionMatch: 'Exact', limit: 1 });
    await storage.update(`${PREFIX}a`, thing('a', 'green'));
    await storage.compact(6);
    await rejects(reads.list(PREFIX, { resourceVersion: '3', resourceVersionMatch: 'Exact' }), 410, /The resourceVersion for the provided list is too old/);
    const expired = await rejects(reads.list(PREFIX, { continue: page.metadata.continue }), 410, /continue parameter is too old/);
    const token = decodeContinue(expired.status.metadata.continue ?? '');
    assert.deepEqual(token, { revision: -1, start: 'things/a\u0000' });
    // The cache has caught up with the store: the page comes from it.
    cacher.rev = 6;
    cacher.items = (await storage.list(PREFIX)).items;
    const latest = await reads.list(PREFIX, { continue: expired.status.metadata.continue });
    assert.deepEqual(names(latest), ['b:blue', 'c:red', 'd:blue', 'e:red']);
    assert.equal(latest.metadata.resourceVersion, '6');
    assert.ok(cacher.calls.includes('waitForFresh'));
  });

  test('watch: unset starts with the fresh cache state (filtered) as ADDED; N starts after N without initial events', async () => {
    const controller = new AbortController();
    const notB = (obj: KubeObject) => obj.metadata?.name !== 'b';
    const events: WatchEvent[] = [];
    for await (const ev of await reads.watch(PREFIX, { signal: controller.signal }, notB)) {
      events.push(ev);
      controller.abort();
    }
    assert.deepEqual(
      events.map((e) => `${e.type} ${e.object.metadata?.name ?? ''} ${e.object.metadata?.resourceVersion ?? ''}`),
      ['ADDED a 1'],
    );
    assert.deepEqual(cacher.calls, ['ready', 'waitForFresh']);
    cacher.calls = [];
    const later = new AbortController();
    const iter = (await reads.watch(PREFIX, { resourceVersion: '2', signal: later.signal }))[Symbol.asyncIterator]();
    const pending = iter.next();
    later.abort();
    assert.equal((await pending).done, true);
    assert.deepEqual(cacher.calls, ['ready']);
    await rejects(reads.watch(PREFIX, { resourceVersion: 'x', signal: later.signal }), 422, /things.testing/);
  });
});
