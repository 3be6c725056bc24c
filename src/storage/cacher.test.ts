import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createCacher, type CacherOptions, type WatchCache } from './cacher.js';
import {
  TooLargeResourceVersionError,
  TooOldResourceVersionError,
  type CacheEvent,
  type Cacher,
  type Storage,
  type StorageEvent,
} from './interface.js';
import { MemoryStorage } from './memory.js';
import { SqliteStorage } from './sqlite.js';
import type { ProgressReporting } from './watch-hub.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined): string => new TextDecoder().decode(b);

async function withCache(
  opts: CacherOptions,
  body: (storage: MemoryStorage, cache: WatchCache) => Promise<void>,
  seed?: (storage: MemoryStorage) => Promise<void>,
): Promise<void> {
  const storage = new MemoryStorage();
  await seed?.(storage);
  const cache = createCacher(storage, '/registry/pods/', opts);
  try {
    await cache.ready();
    await body(storage, cache);
  } finally {
    await cache.stop();
    await storage.close();
  }
}

/** Takes `count` events from a cache watch, or fewer if the watch ends first; bounded in time. */
async function take(cache: Cacher, prefix: string, after: number, count: number, bookmarks = false): Promise<CacheEvent[]> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), 10_000);
  const events: CacheEvent[] = [];
  try {
    for await (const e of cache.watch(prefix, after, ctl.signal, { bookmarks })) {
      events.push(e);
      if (events.length >= count) break;
    }
  } finally {
    clearTimeout(timer);
    ctl.abort();
  }
  return events;
}

const revisions = (events: CacheEvent[]): number[] => events.map((e) => e.revision);

describe('watch cache', () => {
  it('loads the prefix and lists it from memory in key order, in pages', () =>
    withCache(
      { listPageSize: 2 },
      async (storage, cache) => {
        const all = cache.list();
        assert.deepEqual(all.items.map((i) => i.key), ['/registry/pods/a/1', '/registry/pods/a/2', '/registry/pods/b/1', '/registry/pods/c/1', '/registry/pods/c/2']);
        assert.equal(all.revision, await storage.revision());
        const page = cache.list({ limit: 2, startKey: '/registry/pods/a/2' });
        assert.deepEqual(page.items.map((i) => i.key), ['/registry/pods/a/2', '/registry/pods/b/1']);
        assert.deepEqual([page.more, page.remaining], [true, 2]);
        const ns = cache.list({ prefix: '/registry/pods/c/' });
        assert.deepEqual([ns.items.length, ns.more, ns.remaining], [2, false, 0]);
        assert.equal(cache.get('/registry/services/x'), undefined, 'other prefixes are not cached');
      },
      async (storage) => {
        for (const k of ['c/2', 'a/1', 'b/1', 'c/1', 'a/2']) await storage.create(`/registry/pods/${k}`, bytes(k));
        await storage.create('/registry/services/x', bytes('x'));
        await storage.create('/registry/podsecurity/y', bytes('y'));
      },
    ));

  it('fills from a shared read of a wider prefix, then follows the store from its revision', async () => {
    const storage = new MemoryStorage();
    for (const k of ['pods/b/1', 'pods/a/1', 'podsecurity/y', 'services/x']) await storage.create(`/registry/${k}`, bytes(k));
    const whole = await storage.list('/registry/');
    await storage.create('/registry/pods/c/1', bytes('written after the read'));
    await storage.delete('/registry/pods/a/1');
    let lists = 0;
    const counting = Object.assign(Object.create(storage) as MemoryStorage, {
      list: (...args: Parameters<Storage['list']>) => {
        lists++;
        return storage.list(...args);
      },
    });
    const cache = createCacher(counting, '/registry/pods/', { initialList: { prefix: '/registry/', list: Promise.resolve(whole) } });
    try {
      await cache.ready();
      assert.equal(lists, 0, 'the store is not read again');
      await cache.waitForFresh();
      assert.deepEqual(cache.list().items.map((i) => [i.key, text(i.value)]), [
        ['/registry/pods/b/1', 'pods/b/1'],
        ['/registry/pods/c/1', 'written after the read'],
      ]);
      const events = await take(cache, '/registry/pods/', whole.revision, 2);
      assert.deepEqual(events.map((e) => [e.type, e.type === 'bookmark' ? '' : e.key]), [
        ['put', '/registry/pods/c/1'],
        ['delete', '/registry/pods/a/1'],
      ]);
    } finally {
      await cache.stop();
    }
    // A failed shared read, or one that does not cover the prefix, leaves the cache to read the store.
    for (const initialList of [{ prefix: '/registry/', list: Promise.resolve(undefined) }, { prefix: '/registry/services/', list: Promise.resolve(whole) }]) {
      const other = createCacher(storage, '/registry/pods/', { initialList });
      try {
        await other.ready();
        assert.deepEqual(other.list().items.map((i) => i.key), ['/registry/pods/b/1', '/registry/pods/c/1']);
      } finally {
        await other.stop();
      }
    }
    await storage.close();
  });

  it('follows the store and serves consistent reads after catching up', () =>
    withCache({}, async (storage, cache) => {
      await storage.create('/registry/pods/a', bytes('1'));
      await storage.update('/registry/pods/a', bytes('2'));
      await storage.create('/registry/services/s', bytes('elsewhere'));
      const fresh = await cache.waitForFresh();
      assert.equal(fresh, 3, 'writes under other prefixes count towards freshness');
      assert.equal(text(cache.get('/registry/pods/a')?.value), '2');
      assert.equal(cache.list().revision, 3);
      await storage.delete('/registry/pods/a');
      await cache.waitForFresh();
      assert.equal(cache.get('/registry/pods/a'), undefined);
      assert.equal(cache.list().items.length, 0);
    }));

  it('ends a wait for a write elsewhere once its watch has caught up, without waiting for a poll', () =>
    withCache({}, async (storage, cache) => {
      // An event of its own still on its way, then a write elsewhere: the wait needs both.
      const writes = Promise.all([storage.create('/registry/pods/a', bytes('1')), storage.create('/registry/services/s', bytes('elsewhere'))]);
      const fresh = cache.waitForFresh();
      await writes;
      // Nothing here needs a timer: the wait ends within the same turn of the event loop.
      const first = await Promise.race([fresh.then(() => 'fresh'), new Promise<string>((resolve) => setImmediate(() => resolve('next turn')))]);
      assert.equal(first, 'fresh');
      assert.equal(await fresh, 2);
      assert.equal(text(cache.get('/registry/pods/a')?.value), '1');
    }));

  it('reaches the current revision of a SQLite store with writes elsewhere', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'orch-cacher-'));
    const storage: Storage = await SqliteStorage.open({ dataDir });
    const cache = createCacher(storage, '/registry/pods/');
    try {
      await cache.ready();
      await storage.create('/registry/pods/p', bytes('p'));
      for (let i = 0; i < 20; i++) await storage.create(`/registry/configmaps/${i}`, bytes('c'));
      assert.equal(await cache.waitForFresh(), 21);
      assert.deepEqual(cache.list().items.map((i) => i.key), ['/registry/pods/p']);
    } finally {
      await cache.stop();
      await storage.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('fails a wait for a revision the store does not reach', () =>
    withCache({}, async (storage, cache) => {
      await storage.create('/registry/pods/a', bytes('1'));
      await assert.rejects(cache.waitForRevision(50, 30), (err: unknown) => {
        assert.ok(err instanceof TooLargeResourceVersionError);
        assert.deepEqual([err.requested, err.current], [50, 1]);
        assert.equal(err.message, 'Too large resource version: 50, current: 1');
        return true;
      });
    }));

  it('serves a watch from inside the window: every later event once, in order', () =>
    withCache({}, async (storage, cache) => {
      for (let i = 0; i < 5; i++) await storage.create(`/registry/pods/${i}`, bytes(String(i)));
      await cache.waitForFresh();
      const from = 2;
      const writers = Array.from({ length: 6 }, async (_, w) => {
        for (let i = 0; i < 20; i++) {
          await storage.create(`/registry/pods/w${w}-${i}`, bytes('x'));
          if (i % 4 === 0) await storage.create(`/registry/other/${w}-${i}`, bytes('noise'));
        }
      });
      const watching = take(cache, '/registry/pods/', from, 3 + 120);
      await Promise.all(writers);
      const events = await watching;
      assert.equal(events.length, 123);
      const revs = revisions(events);
      assert.deepEqual(revs.slice(0, 3), [3, 4, 5]);
      for (let i = 1; i < revs.length; i++) assert.ok((revs[i] as number) > (revs[i - 1] as number), 'strictly increasing');
      assert.equal(new Set(events.map((e) => ('key' in e ? e.key : ''))).size, 123, 'no duplicates');
      assert.ok(events.every((e) => 'key' in e && e.key.startsWith('/registry/pods/')));
    }));

  it('narrows a watch to a sub-prefix (one namespace)', () =>
    withCache({}, async (storage, cache) => {
      const start = cache.revision();
      await storage.create('/registry/pods/ns1/a', bytes('a'));
      await storage.create('/registry/pods/ns2/b', bytes('b'));
      await storage.create('/registry/pods/ns1/c', bytes('c'));
      const events = await take(cache, '/registry/pods/ns1/', start, 2);
      assert.deepEqual(events.map((e) => ('key' in e ? e.key : '')), ['/registry/pods/ns1/a', '/registry/pods/ns1/c']);
    }));

  it('refuses a watch from before the window, bounded by count', () =>
    withCache({ maxEvents: 5 }, async (storage, cache) => {
      for (let i = 0; i < 12; i++) await storage.create(`/registry/pods/${i}`, bytes('x'));
      await cache.waitForFresh();
      assert.equal(cache.oldestRevision(), 7);
      const watch = cache.watch('/registry/pods/', 6, AbortSignal.timeout(5000));
      await assert.rejects(
        (async () => {
          for await (const _ of watch) break;
        })(),
        (err: unknown) => {
          assert.ok(err instanceof TooOldResourceVersionError);
          assert.equal(err.message, 'too old resource version: 6 (7)');
          return true;
        },
      );
      assert.deepEqual(revisions(await take(cache, '/registry/pods/', 7, 5)), [8, 9, 10, 11, 12]);
    }));

  it('forgets events older than the history window', async () => {
    let clock = 1_000_000;
    await withCache({ historyWindowMs: 60_000, now: () => clock }, async (storage, cache) => {
      // The cache stamps an event when it applies it, so each write is waited for.
      await storage.create('/registry/pods/old', bytes('x')); // 1
      await cache.waitForFresh();
      clock += 30_000;
      await storage.create('/registry/pods/mid', bytes('x')); // 2
      await cache.waitForFresh();
      clock += 40_000;
      await storage.create('/registry/pods/new', bytes('x')); // 3: the first event is now out of the window
      await cache.waitForFresh();
      assert.equal(cache.oldestRevision(), 1);
      await assert.rejects(take(cache, '/registry/pods/', 0, 1), TooOldResourceVersionError);
      assert.deepEqual(revisions(await take(cache, '/registry/pods/', 1, 2)), [2, 3]);
    });
  });

  it('waits for a watch from a revision the cache has not reached yet', () =>
    withCache({}, async (storage, cache) => {
      const watching = take(cache, '/registry/pods/', 2, 1);
      await storage.create('/registry/pods/a', bytes('1'));
      await storage.create('/registry/pods/b', bytes('2'));
      await storage.create('/registry/pods/c', bytes('3'));
      assert.deepEqual(revisions(await watching), [3]);
    }));

  it('ends a watcher that cannot keep up without holding back the others', () =>
    withCache({ watcherBufferSize: 4 }, async (storage, cache) => {
      const start = cache.revision();
      const ctl = new AbortController();
      const slow = cache.watch('/registry/pods/', start, ctl.signal)[Symbol.asyncIterator]();
      const first = slow.next(); // registers, then is not read again while the writes run
      const fast = take(cache, '/registry/pods/', start, 10);
      await storage.create('/registry/pods/0', bytes('x'));
      assert.equal((await first).value?.revision, 1);
      for (let i = 1; i < 10; i++) await storage.create(`/registry/pods/${i}`, bytes('x'));
      assert.deepEqual(revisions(await fast), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      const rest: number[] = [];
      for (let r = await slow.next(); !r.done; r = await slow.next()) rest.push(r.value.revision);
      assert.ok(rest.length < 9, `the slow watcher was ended, after ${rest.length} more events`);
      ctl.abort();
    }));

  it('a cursor gives the backlog, then live events, synchronously and in order; one not taken from is ended at its buffer and let go', () =>
    withCache({ watcherBufferSize: 3 }, async (storage, cache) => {
      const start = cache.revision();
      await storage.create('/registry/pods/a', bytes('1'));
      await storage.create('/registry/other/x', bytes('1'));
      await storage.create('/registry/pods/b', bytes('2'));
      await cache.waitForFresh();
      const cursor = await cache.cursor('/registry/pods/', start);
      const idle = await cache.cursor('/registry/pods/', cache.revision());
      assert.equal(cursor.pending(), true);
      assert.deepEqual([cursor.take()?.revision, cursor.take()?.revision, cursor.take()], [1, 3, undefined]);
      let woken = 0;
      cursor.wait(() => woken++);
      await storage.create('/registry/pods/c', bytes('3'));
      await cache.waitForFresh();
      assert.equal(woken, 1, 'woken once by the event');
      assert.equal(cursor.take()?.revision, 4);
      // `idle` takes nothing: its fourth live event ends it, and it holds nothing more.
      for (const name of ['d', 'e', 'f']) await storage.create(`/registry/pods/${name}`, bytes('4'));
      await cache.waitForFresh();
      assert.equal(idle.ended, true);
      assert.equal(idle.take(), undefined);
      let told = false;
      idle.wait(() => (told = true));
      assert.equal(told, true, 'an ended cursor wakes its consumer at once');
      assert.deepEqual([cursor.take()?.revision, cursor.take()?.revision, cursor.take()?.revision], [5, 6, 7]);
      cursor.close();
      assert.equal(cursor.ended, true);
    }));

  it('a cursor from a revision the ring no longer has fails', () =>
    withCache({ maxEvents: 1 }, async (storage, cache) => {
      await storage.create('/registry/pods/a', bytes('1'));
      await storage.create('/registry/pods/b', bytes('1'));
      await storage.create('/registry/pods/c', bytes('1'));
      await cache.waitForFresh();
      await assert.rejects(cache.cursor('/registry/pods/', 0), TooOldResourceVersionError);
    }));

  it('holds the snapshot of a revision until something under its prefix changes, whatever is written elsewhere', () =>
    withCache({}, async (storage, cache) => {
      await storage.create('/registry/pods/a', bytes('1'));
      const at = await cache.waitForFresh();
      assert.equal(cache.holdsRevision(at), true);
      assert.equal(cache.holdsRevision(at - 1), false, 'a change came after it');
      assert.equal(cache.holdsRevision(at + 1), false, 'not reached yet');
      await storage.create('/registry/other/x', bytes('1'));
      const later = await cache.waitForFresh();
      assert.ok(later > at);
      assert.equal(cache.holdsRevision(at), true, 'a write elsewhere changes nothing here');
      await storage.create('/registry/pods/b', bytes('1'));
      await cache.waitForFresh();
      assert.equal(cache.holdsRevision(at), false);
      assert.equal(cache.holdsRevision(later), false);
    }));

  it('with many watched prefixes, each watcher gets exactly the events under its own', () =>
    withCache({}, async (storage, cache) => {
      const start = cache.revision();
      const namespaces = Array.from({ length: 24 }, (_, i) => `ns${i}`);
      const cursors = await Promise.all([
        ...namespaces.map((ns) => cache.cursor(`/registry/pods/${ns}/`, start)),
        cache.cursor('/registry/pods/', start),
        // A prefix that is not a whole path segment: ns1, ns10, ns11, ...
        cache.cursor('/registry/pods/ns1', start),
      ]);
      for (const ns of namespaces) await storage.create(`/registry/pods/${ns}/p`, bytes(ns));
      await cache.waitForFresh();
      const keys = (c: (typeof cursors)[number]): string[] => {
        const out: string[] = [];
        for (let e = c.take(); e !== undefined; e = c.take()) if (e.type !== 'bookmark') out.push(e.key);
        return out;
      };
      namespaces.forEach((ns, i) => assert.deepEqual(keys(cursors[i]!), [`/registry/pods/${ns}/p`]));
      assert.equal(keys(cursors[24]!).length, 24);
      assert.deepEqual(keys(cursors[25]!), namespaces.filter((ns) => ns.startsWith('ns1')).map((ns) => `/registry/pods/${ns}/p`));
      for (const c of cursors) c.close();
    }));

  it('sends bookmarks to the watchers that asked for them', () =>
    withCache({}, async (storage, cache) => {
      await storage.create('/registry/pods/a', bytes('1'));
      await storage.create('/registry/other/b', bytes('2'));
      await cache.waitForFresh();
      const start = cache.revision();
      const withMarks = take(cache, '/registry/pods/', start, 2, true);
      const without = take(cache, '/registry/pods/', start, 1, false);
      await new Promise((resolve) => setImmediate(resolve));
      cache.bookmarkNow();
      await storage.create('/registry/pods/c', bytes('3'));
      assert.deepEqual(await withMarks, [
        { type: 'bookmark', revision: 2 },
        (await storage.watch('/registry/pods/', 2, AbortSignal.timeout(5000))[Symbol.asyncIterator]().next()).value,
      ]);
      assert.deepEqual(revisions(await without), [3], 'no bookmark for a watcher that did not ask');
    }));
});

/** A store whose watches the test can break, as a lost connection to the store would. */
class BreakableStorage extends MemoryStorage {
  private breakers = new Set<(err: Error) => void>();
  watches = 0;

  override watch(prefix: string, afterRevision: number, signal: AbortSignal): AsyncIterable<StorageEvent> & ProgressReporting {
    const local = new AbortController();
    signal.addEventListener('abort', () => local.abort());
    const inner = super.watch(prefix, afterRevision, local.signal);
    this.watches++;
    let broken: Error | undefined;
    let wake: (() => void) | undefined;
    const breaker = (err: Error): void => {
      broken = err;
      wake?.();
    };
    this.breakers.add(breaker);
    const breakers = this.breakers;
    return {
      progressRevision: () => inner.progressRevision(),
      async *[Symbol.asyncIterator]() {
        const it = inner[Symbol.asyncIterator]();
        try {
          for (;;) {
            const next = it.next();
            const failed = new Promise<never>((_, reject) => {
              wake = () => reject(broken);
              if (broken) reject(broken);
            });
            const r = await Promise.race([next, failed]);
            if (r.done) return;
            yield r.value;
          }
        } finally {
          breakers.delete(breaker);
          local.abort(); // ends the inner watch, which may be waiting for an event
        }
      },
    };
  }

  breakWatches(): void {
    for (const b of this.breakers) b(new Error('connection lost'));
  }
}

it('watch cache recovers from a broken store watch; its watchers re-watch', async () => {
  const storage = new BreakableStorage();
  await storage.create('/registry/pods/a', bytes('1'));
  const cache = createCacher(storage, '/registry/pods/');
  try {
    await cache.ready();
    const watching = take(cache, '/registry/pods/', cache.revision(), 100);
    await storage.create('/registry/pods/b', bytes('2'));
    await cache.waitForFresh();
    storage.breakWatches();
    const seen = await watching;
    assert.deepEqual(revisions(seen), [2], 'the watcher saw the event, then its watch ended');
    await storage.create('/registry/pods/c', bytes('3'));
    await storage.delete('/registry/pods/a');
    assert.equal(await cache.waitForFresh(5000), 4);
    assert.deepEqual(cache.list().items.map((i) => i.key), ['/registry/pods/b', '/registry/pods/c']);
    assert.ok(storage.watches >= 2, 'the cache watched the store again');
  } finally {
    await cache.stop();
    await storage.close();
  }
});
