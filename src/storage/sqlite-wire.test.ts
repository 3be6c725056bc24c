import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Item, ListResult } from './interface.js';
import { itemsInChunks, packList, unpackList } from './sqlite-wire.js';

it('packs a list into one buffer and back, empty values and the paging fields included', () => {
  const list: ListResult = {
    items: [
      { key: '/registry/a', value: new TextEncoder().encode('first'), createRevision: 3, modRevision: 9 },
      { key: '/registry/b', value: new Uint8Array(0), createRevision: 4, modRevision: 4 },
      { key: '/registry/\u{1F600}', value: Buffer.from([0, 255, 7]), createRevision: 2 ** 40, modRevision: 2 ** 40 + 1 },
    ],
    revision: 2 ** 40 + 5,
    more: true,
    remaining: 12,
  };
  const packed = packList(list);
  assert.deepEqual(packed.values.map((b) => b.byteLength), [8]);
  const back = unpackList(structuredClone(packed, { transfer: packed.values }));
  assert.deepEqual(
    back.items.map((i) => ({ ...i, value: [...i.value] })),
    list.items.map((i) => ({ ...i, value: [...i.value] })),
  );
  assert.deepEqual([back.revision, back.more, back.remaining], [list.revision, true, 12]);
  assert.deepEqual(unpackList(packList({ items: [], revision: 1, more: false, remaining: 0 })), { items: [], revision: 1, more: false, remaining: 0 });
});

it('reads rows into buffers of a fixed size and hands those buffers over without copying them', () => {
  const rows = [
    { key: '/registry/a', value: new TextEncoder().encode('first'), createRevision: 3, modRevision: 9 },
    { key: '/registry/b', value: new Uint8Array(0), createRevision: 4, modRevision: 4 },
    { key: '/registry/c', value: new Uint8Array(20).fill(7), createRevision: 5, modRevision: 6 },
    { key: '/registry/d', value: new Uint8Array(40).fill(8), createRevision: 7, modRevision: 7 },
    { key: '/registry/e', value: Buffer.from('last'), createRevision: 8, modRevision: 8 },
  ];
  const plain = (items: readonly Item[]): unknown[] => items.map((i) => ({ ...i, value: [...i.value] }));
  const items = itemsInChunks(rows, 32, 32);
  assert.deepEqual(plain(items), plain(rows));
  // 'first', '' and 20 bytes share the first buffer; 40 bytes get one of their own; 'last' starts the third.
  assert.deepEqual(items.map((i) => i.value.buffer.byteLength), [32, 32, 32, 40, 32]);
  const packed = packList({ items, revision: 9, more: false, remaining: 0 });
  assert.deepEqual(packed.values, [...new Set(items.map((i) => i.value.buffer))]);
  const back = unpackList(structuredClone(packed, { transfer: packed.values }));
  assert.deepEqual(plain(back.items), plain(rows));
  assert.deepEqual(itemsInChunks([]), []);
});

it('copies values that are not all views of buffers it filled: a pooled buffer is never handed over', () => {
  const items = [
    ...itemsInChunks([{ key: '/registry/a', value: Buffer.from('one'), createRevision: 1, modRevision: 1 }]),
    { key: '/registry/b', value: Buffer.from('two'), createRevision: 2, modRevision: 2 },
  ];
  const packed = packList({ items, revision: 2, more: false, remaining: 0 });
  assert.deepEqual(packed.values.map((b) => b.byteLength), [6]);
  assert.deepEqual(unpackList(packed).items.map((i) => Buffer.from(i.value).toString()), ['one', 'two']);
});

it('starts with a small buffer and doubles it up to the largest', () => {
  const rows = Array.from({ length: 12 }, (_, i) => ({ key: `/registry/${i}`, value: new Uint8Array(8).fill(i), createRevision: i + 1, modRevision: i + 1 }));
  const items = itemsInChunks(rows, 32, 8);
  assert.deepEqual([...new Set(items.map((i) => i.value.buffer))].map((b) => b.byteLength), [8, 16, 32, 32, 32]);
  assert.deepEqual(items.map((i) => i.value[0]), rows.map((_, i) => i));
});
