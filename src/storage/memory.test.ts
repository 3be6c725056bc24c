// A memory store started from another's snapshot: the same contents at the same revision,
// as a store compacted there, with nothing shared that a reader could key memos by.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CompactedError, type StorageEvent } from './interface.js';
import { MemoryStorage } from './memory.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined): string => new TextDecoder().decode(b);

async function seeded(): Promise<MemoryStorage> {
  const a = new MemoryStorage();
  await a.create('/registry/a/1', bytes('one'));
  await a.create('/registry/a/2', bytes('two'));
  await a.update('/registry/a/1', bytes('one again'));
  await a.create('/registry/b/1', bytes('gone'));
  await a.delete('/registry/b/1');
  return a;
}

describe('MemoryStorage snapshots', () => {
  test('a store started from a snapshot answers reads as the original did at that revision', async () => {
    const a = await seeded();
    const snap = a.snapshot();
    assert.equal(snap.revision, 5);
    assert.deepEqual(
      snap.items.map((i) => [i.key, i.createRevision, i.modRevision]),
      [
        ['/registry/a/1', 1, 3],
        ['/registry/a/2', 2, 2],
      ],
    );
    const b = new MemoryStorage({ snapshot: snap });
    assert.equal(await b.revision(), 5);
    const list = await b.list('/registry/');
    assert.deepEqual(list.items.map((i) => [i.key, text(i.value), i.createRevision, i.modRevision]), [
      ['/registry/a/1', 'one again', 1, 3],
      ['/registry/a/2', 'two', 2, 2],
    ]);
    assert.equal((await b.get('/registry/b/1')).item, undefined);
    // Each store hands out its own Item objects.
    assert.notEqual((await b.get('/registry/a/1')).item, (await a.get('/registry/a/1')).item);
  });

  test('writes continue from the snapshot revision, and the two stores go their own ways', async () => {
    const a = await seeded();
    const b = new MemoryStorage({ snapshot: a.snapshot() });
    const item = await b.update('/registry/a/2', bytes('changed'), 2);
    assert.equal(item.modRevision, 6);
    assert.equal(text((await a.get('/registry/a/2')).item?.value), 'two');
    await assert.rejects(b.create('/registry/a/1', bytes('x')), /key exists/);
    assert.equal((await b.create('/registry/b/1', bytes('back'))).createRevision, 7);
  });

  test('history before the snapshot is compacted; watches from its revision see every later write', async () => {
    const b = new MemoryStorage({ snapshot: (await seeded()).snapshot() });
    await assert.rejects(b.get('/registry/a/1', { atRevision: 4 }), CompactedError);
    const old = b.watch('/registry/', 2, new AbortController().signal)[Symbol.asyncIterator]();
    await assert.rejects(old.next(), CompactedError);
    const ac = new AbortController();
    const events = b.watch('/registry/', 5, ac.signal)[Symbol.asyncIterator]();
    await b.delete('/registry/a/1');
    const first = (await events.next()).value as StorageEvent;
    assert.deepEqual([first.type, first.key, first.revision, text(first.prev?.value)], ['delete', '/registry/a/1', 6, 'one again']);
    ac.abort();
  });

  test('a snapshot is frozen', async () => {
    const snap = (await seeded()).snapshot();
    assert.ok(Object.isFrozen(snap) && Object.isFrozen(snap.items));
  });
});
