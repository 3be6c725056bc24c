import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ListResult } from './interface.js';
import { itemsInOneBuffer, packList, unpackList } from './sqlite-wire.js';

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
  assert.equal(packed.values.byteLength, 8);
  const back = unpackList(structuredClone(packed, { transfer: [packed.values] }));
  assert.deepEqual(
    back.items.map((i) => ({ ...i, value: [...i.value] })),
    list.items.map((i) => ({ ...i, value: [...i.value] })),
  );
  assert.deepEqual([back.revision, back.more, back.remaining], [list.revision, true, 12]);
  assert.deepEqual(unpackList(packList({ items: [], revision: 1, more: false, remaining: 0 })), { items: [], revision: 1, more: false, remaining: 0 });
});

it('reads rows into one buffer and packs that buffer without copying it', () => {
  const rows = [
    { key: '/registry/a', value: new TextEncoder().encode('first'), createRevision: 3, modRevision: 9 },
    { key: '/registry/b', value: new Uint8Array(0), createRevision: 4, modRevision: 4 },
    { key: '/registry/c', value: new Uint8Array(100_000).fill(7), createRevision: 5, modRevision: 6 },
  ];
  const items = itemsInOneBuffer(rows);
  assert.deepEqual(
    items.map((i) => ({ ...i, value: [...i.value] })),
    rows.map((i) => ({ ...i, value: [...i.value] })),
  );
  const buffer = items[0]!.value.buffer;
  assert.equal(buffer.byteLength, 100_005);
  for (const item of items) assert.equal(item.value.buffer, buffer);
  const packed = packList({ items, revision: 9, more: false, remaining: 0 });
  assert.equal(packed.values, buffer);
  const back = unpackList(structuredClone(packed, { transfer: [packed.values] }));
  assert.deepEqual(
    back.items.map((i) => ({ ...i, value: [...i.value] })),
    rows.map((i) => ({ ...i, value: [...i.value] })),
  );
  assert.deepEqual(itemsInOneBuffer([]), []);
});
