// The conformance suite every Storage backend passes: run it against a backend by calling
// `describeStorageConformance` from that backend's test file.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CompactedError,
  ConflictError,
  KeyExistsError,
  NotFoundError,
  TooLargeResourceVersionError,
  type Storage,
  type StorageEvent,
} from '../storage/interface.js';

export interface StorageHarness {
  /** The store keeps its data across close and reopen (the restart test runs). */
  durable: boolean;
  /** A fresh, empty store. `watchBufferSize` asks for a small watch buffer where supported. */
  open(opts?: { watchBufferSize?: number }): Promise<OpenedStorage>;
}

export interface OpenedStorage {
  storage: Storage;
  /** Closes and reopens the same store (durable backends only). */
  reopen?: () => Promise<Storage>;
  /** Closes the store and removes what it left behind. */
  dispose(): Promise<void>;
}

const enc = new TextEncoder();
const dec = new TextDecoder();
const bytes = (s: string): Uint8Array => enc.encode(s);
const text = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : dec.decode(b));

/** Reads `count` events from a watch, failing instead of hanging when they do not come. */
export async function takeEvents(
  storage: Storage,
  prefix: string,
  after: number,
  count: number,
  opts: { timeoutMs?: number; onEach?: () => Promise<void> } = {},
): Promise<StorageEvent[]> {
  const ctl = new AbortController();
  const events: StorageEvent[] = [];
  const timer = setTimeout(() => ctl.abort(), opts.timeoutMs ?? 15_000);
  try {
    if (count > 0) {
      for await (const event of storage.watch(prefix, after, ctl.signal)) {
        events.push(event);
        if (opts.onEach) await opts.onEach();
        if (events.length >= count) break;
      }
    }
  } finally {
    clearTimeout(timer);
    ctl.abort();
  }
  assert.equal(events.length, count, `expected ${count} events, the watch delivered ${events.length} in time`);
  return events;
}

function assertContiguous(events: StorageEvent[], first: number): void {
  events.forEach((e, i) => assert.equal(e.revision, first + i, `event ${i} has revision ${e.revision}`));
}

export function describeStorageConformance(name: string, harness: StorageHarness): void {
  const withStore = (opts: { watchBufferSize?: number }, body: (o: OpenedStorage) => Promise<void>) => async () => {
    const opened = await harness.open(opts);
    try {
      await body(opened);
    } finally {
      await opened.dispose();
    }
  };

  describe(`storage conformance: ${name}`, () => {
    it('creates, reads, updates and deletes with etcd revision semantics', withStore({}, async ({ storage }) => {
      assert.equal(await storage.revision(), 0);
      const a = await storage.create('/r/a', bytes('a1'));
      assert.deepEqual([a.createRevision, a.modRevision], [1, 1]);
      const b = await storage.create('/r/b', bytes('b1'));
      assert.deepEqual([b.createRevision, b.modRevision], [2, 2]);
      await assert.rejects(storage.create('/r/a', bytes('again')), KeyExistsError);
      assert.equal(await storage.revision(), 2, 'a failed write does not use a revision');

      const a2 = await storage.update('/r/a', bytes('a2'), 1);
      assert.deepEqual([a2.createRevision, a2.modRevision, text(a2.value)], [1, 3, 'a2']);
      const conflict = await storage.update('/r/a', bytes('stale'), 1).then(
        () => undefined,
        (err: unknown) => err,
      );
      assert.ok(conflict instanceof ConflictError);
      assert.deepEqual([conflict.key, conflict.expected, conflict.actual], ['/r/a', 1, 3]);
      await assert.rejects(storage.update('/r/missing', bytes('x')), NotFoundError);
      const a3 = await storage.update('/r/a', bytes('a3'));
      assert.equal(a3.modRevision, 4, 'an unconditional update always applies');

      const got = await storage.get('/r/a');
      assert.equal(got.revision, 4);
      assert.equal(text(got.item?.value), 'a3');
      assert.deepEqual([got.item?.createRevision, got.item?.modRevision], [1, 4]);

      await assert.rejects(storage.delete('/r/b', 1), ConflictError);
      const deleted = await storage.delete('/r/b', 2);
      assert.deepEqual([deleted.key, text(deleted.value), deleted.modRevision], ['/r/b', 'b1', 2]);
      assert.equal(await storage.revision(), 5);
      assert.equal((await storage.get('/r/b')).item, undefined);
      await assert.rejects(storage.delete('/r/b'), NotFoundError);
      await assert.rejects(storage.update('/r/b', bytes('x')), NotFoundError);

      const again = await storage.create('/r/b', bytes('b2'));
      assert.deepEqual([again.createRevision, again.modRevision], [6, 6], 'a re-created key starts a new life');
      const empty = await storage.create('/r/empty', new Uint8Array(0));
      assert.equal((await storage.get('/r/empty')).item?.value.length, empty.value.length);
    }));

    it('reads exact snapshots at old revisions and refuses future ones', withStore({}, async ({ storage }) => {
      await storage.create('/s/a', bytes('a1')); // 1
      await storage.create('/s/b', bytes('b1')); // 2
      await storage.update('/s/a', bytes('a2')); // 3
      await storage.delete('/s/b'); // 4
      await storage.create('/s/c', bytes('c1')); // 5
      const at = async (rev: number): Promise<string[]> =>
        (await storage.list('/s/', { atRevision: rev })).items.map((i) => `${i.key}=${text(i.value)}@${i.modRevision}`);
      assert.deepEqual(await at(1), ['/s/a=a1@1']);
      assert.deepEqual(await at(2), ['/s/a=a1@1', '/s/b=b1@2']);
      assert.deepEqual(await at(3), ['/s/a=a2@3', '/s/b=b1@2']);
      assert.deepEqual(await at(4), ['/s/a=a2@3']);
      assert.deepEqual(await at(5), ['/s/a=a2@3', '/s/c=c1@5']);
      assert.equal((await storage.list('/s/', { atRevision: 3 })).revision, 3);
      assert.equal(text((await storage.get('/s/a', { atRevision: 2 })).item?.value), 'a1');
      assert.equal((await storage.get('/s/b', { atRevision: 4 })).item, undefined);
      assert.equal((await storage.get('/s/c', { atRevision: 4 })).item, undefined);
      await assert.rejects(storage.get('/s/a', { atRevision: 6 }), TooLargeResourceVersionError);
      await assert.rejects(storage.list('/s/', { atRevision: 99 }), TooLargeResourceVersionError);
    }));

    it('lists a prefix in key order, in pages with more and remaining', withStore({}, async ({ storage }) => {
      const names = ['b', 'a', 'd', 'c', 'e', 'aa'];
      for (const n of names) await storage.create(`/p/${n}`, bytes(n));
      await storage.create('/pq/x', bytes('outside'));
      await storage.create('/p', bytes('the prefix itself is no child'));
      const all = await storage.list('/p/');
      assert.deepEqual(all.items.map((i) => i.key), ['/p/a', '/p/aa', '/p/b', '/p/c', '/p/d', '/p/e']);
      assert.deepEqual([all.more, all.remaining], [false, 0]);
      const first = await storage.list('/p/', { limit: 4 });
      assert.deepEqual(first.items.map((i) => i.key), ['/p/a', '/p/aa', '/p/b', '/p/c']);
      assert.deepEqual([first.more, first.remaining], [true, 2]);
      const second = await storage.list('/p/', { startKey: '/p/c\0', limit: 4, atRevision: first.revision });
      assert.deepEqual(second.items.map((i) => i.key), ['/p/d', '/p/e']);
      assert.deepEqual([second.more, second.remaining], [false, 0]);
      const exact = await storage.list('/p/', { startKey: '/p/b', limit: 1 });
      assert.deepEqual([exact.items.map((i) => i.key), exact.remaining], [['/p/b'], 3]);
      assert.equal((await storage.list('/nothing/')).items.length, 0);
      assert.equal((await storage.list('')).items.length, 8, 'the empty prefix lists everything');
    }));

    it('orders keys by their UTF-8 bytes', withStore({}, async ({ storage }) => {
      for (const k of ['😀', '\uffee', 'é', 'z', 'a😀', 'a\uffee']) await storage.create(`/u/${k}`, bytes(k));
      const keys = (await storage.list('/u/')).items.map((i) => i.key.slice(3));
      assert.deepEqual(keys, ['a\uffee', 'a😀', 'z', 'é', '\uffee', '😀']);
      const page = await storage.list('/u/', { startKey: '/u/\uffee', limit: 1 });
      assert.deepEqual([page.items.map((i) => i.key), page.remaining], [['/u/\uffee'], 1]);
    }));

    it('keeps paging at one revision stable under concurrent writes', withStore({}, async ({ storage }) => {
      for (let i = 0; i < 40; i++) await storage.create(`/pg/${String(i).padStart(3, '0')}`, bytes(`v${i}`));
      const snapshot = await storage.list('/pg/');
      const expected = snapshot.items.map((i) => `${i.key}=${text(i.value)}`);
      let writes = 0;
      const churn = async (): Promise<void> => {
        const n = writes++;
        const key = `/pg/${String(n % 40).padStart(3, '0')}`;
        if (n % 3 === 0) await storage.update(key, bytes(`changed${n}`));
        else if (n % 3 === 1) await storage.create(`/pg/${String(n).padStart(3, '0')}x`, bytes('new'));
        else await storage.delete(key).catch(() => undefined);
      };
      const seen: string[] = [];
      let page = await storage.list('/pg/', { atRevision: snapshot.revision, limit: 7 });
      seen.push(...page.items.map((i) => `${i.key}=${text(i.value)}`));
      let left = page.remaining;
      while (page.more) {
        await Promise.all([churn(), churn(), churn()]);
        const last = page.items[page.items.length - 1]?.key ?? '';
        page = await storage.list('/pg/', { atRevision: snapshot.revision, startKey: `${last}\0`, limit: 7 });
        assert.equal(page.revision, snapshot.revision);
        assert.equal(page.items.length + page.remaining, left, 'remaining counts the rest of the same snapshot');
        left = page.remaining;
        seen.push(...page.items.map((i) => `${i.key}=${text(i.value)}`));
      }
      assert.deepEqual(seen, expected);
      assert.ok((await storage.revision()) > snapshot.revision);
    }));

    it('delivers every event of concurrent writers once, in order, with previous values', withStore({}, async ({ storage }) => {
      await storage.create('/w/seed', bytes('seed'));
      const start = await storage.revision();
      const writers = 8;
      const perWriter = 30;
      const watching = takeEvents(storage, '/w/', start, writers * perWriter);
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          for (let i = 0; i < perWriter; i++) {
            const key = `/w/${w}`;
            if (i === 0) await storage.create(key, bytes(`${w}:${i}`));
            else if (i % 10 === 9) await storage.delete(key);
            else if (i % 10 === 0) await storage.create(key, bytes(`${w}:${i}`));
            else await storage.update(key, bytes(`${w}:${i}`));
          }
        }),
      );
      const events = await watching;
      assertContiguous(events, start + 1);
      const lastValue = new Map<string, string>();
      for (const e of events) {
        if (e.type === 'delete') {
          assert.equal(e.item, undefined);
          assert.equal(text(e.prev?.value), lastValue.get(e.key), 'a delete carries the deleted value');
          lastValue.delete(e.key);
        } else {
          assert.equal(e.item?.modRevision, e.revision);
          assert.equal(text(e.prev?.value), lastValue.get(e.key), 'a put carries the value it replaced');
          lastValue.set(e.key, text(e.item?.value) as string);
        }
      }
      const now = await storage.list('/w/');
      assert.deepEqual(
        now.items.filter((i) => i.key !== '/w/seed').map((i) => `${i.key}=${text(i.value)}`),
        [...lastValue].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${v}`),
      );
    }));

    it('replays history after a past revision and resumes from the last seen one', withStore({}, async ({ storage }) => {
      for (let i = 0; i < 10; i++) await storage.create(`/h/${i}`, bytes(String(i)));
      await storage.create('/other/x', bytes('x'));
      for (let i = 0; i < 10; i++) await storage.update(`/h/${i}`, bytes(`${i}b`));
      const firstPart = await takeEvents(storage, '/h/', 3, 5);
      assert.deepEqual(firstPart.map((e) => e.revision), [4, 5, 6, 7, 8]);
      const lastSeen = (firstPart[4] as StorageEvent).revision;
      const writing = (async () => {
        for (let i = 0; i < 5; i++) await storage.delete(`/h/${i}`);
      })();
      const rest = await takeEvents(storage, '/h/', lastSeen, 2 + 10 + 5);
      await writing;
      assert.deepEqual(
        rest.map((e) => e.revision),
        [9, 10, ...Array.from({ length: 10 }, (_, i) => 12 + i), 22, 23, 24, 25, 26],
        'the watch skips the other prefix and continues with live events',
      );
      assert.ok(rest.every((e) => e.key.startsWith('/h/')));
    }));

    it('keeps a slow watcher exact beyond its buffer', withStore({ watchBufferSize: 8 }, async ({ storage }) => {
      const start = await storage.revision();
      let released!: () => void;
      const gate = new Promise<void>((resolve) => {
        released = resolve;
      });
      let first = true;
      const watching = takeEvents(storage, '/slow/', start, 200, {
        onEach: async () => {
          if (first) {
            first = false;
            await gate; // stall while the writers run far ahead of the buffer
          }
        },
      });
      for (let i = 0; i < 200; i++) await storage.create(`/slow/${i}`, bytes(String(i)));
      released();
      const events = await watching;
      assertContiguous(events, start + 1);
    }));

    it('compacts superseded history and reports Compacted', withStore({}, async ({ storage }) => {
      await storage.create('/c/a', bytes('a1')); // 1
      await storage.create('/c/b', bytes('b1')); // 2
      await storage.update('/c/a', bytes('a2')); // 3
      await storage.delete('/c/b'); // 4
      await storage.create('/c/d', bytes('d1')); // 5
      await storage.update('/c/a', bytes('a3')); // 6
      await storage.delete('/c/d'); // 7
      await storage.compact(5);
      await assert.rejects(storage.get('/c/a', { atRevision: 4 }), CompactedError);
      await assert.rejects(storage.list('/c/', { atRevision: 2 }), CompactedError);
      const err = await takeEvents(storage, '/c/', 3, 1).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof CompactedError, `watch from a compacted revision fails: ${String(err)}`);
      assert.deepEqual([err.requested, err.compacted], [3, 5]);
      const at5 = await storage.list('/c/', { atRevision: 5 });
      assert.deepEqual(at5.items.map((i) => `${i.key}=${text(i.value)}`), ['/c/a=a2', '/c/d=d1']);
      const after = await takeEvents(storage, '/c/', 5, 2);
      assert.deepEqual(after.map((e) => [e.type, e.revision, text(e.prev?.value)]), [
        ['put', 6, 'a2'],
        ['delete', 7, 'd1'],
      ]);
      await storage.compact(7);
      await storage.compact(6); // older than done: nothing to do
      assert.equal(await storage.revision(), 7);
      const current = await storage.list('/c/');
      assert.deepEqual(current.items.map((i) => `${i.key}=${text(i.value)}@${i.createRevision}`), ['/c/a=a3@1']);
      const next = await storage.create('/c/e', bytes('e1'));
      assert.equal(next.modRevision, 8);
      await assert.rejects(storage.compact(100), TooLargeResourceVersionError);
    }));

    it('restarts with nothing lost', { skip: harness.durable ? false : 'the backend is not durable' }, async () => {
      const opened = await harness.open();
      let storage = opened.storage;
      try {
        assert.ok(opened.reopen !== undefined, 'a durable backend can be reopened');
        for (let i = 0; i < 20; i++) await storage.create(`/rs/${i}`, bytes(`v${i}`));
        for (let i = 0; i < 5; i++) await storage.delete(`/rs/${i}`);
        await storage.update('/rs/10', bytes('changed'));
        await storage.compact(10);
        await storage.delete('/rs/19'); // the newest row is a deletion
        const before = await storage.list('/rs/');
        const reopen = opened.reopen;
        storage = await reopen();
        assert.equal(await storage.revision(), 27);
        const after = await storage.list('/rs/');
        assert.deepEqual(after, before);
        await assert.rejects(storage.get('/rs/1', { atRevision: 9 }), CompactedError);
        const history = await takeEvents(storage, '/rs/', 10, 17);
        assertContiguous(history, 11);
        const next = await storage.create('/rs/new', bytes('n'));
        assert.equal(next.modRevision, 28);
        await storage.compact(27);
        storage = await reopen();
        assert.equal(await storage.revision(), 28, 'the revision survives compaction of the newest rows');
        await storage.compact(28);
        await storage.delete('/rs/new');
        await storage.compact(29);
        storage = await reopen();
        assert.equal(await storage.revision(), 29);
        assert.equal((await storage.create('/rs/after', bytes('x'))).modRevision, 30);
      } finally {
        await opened.dispose();
      }
    });
  });
}
