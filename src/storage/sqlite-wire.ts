// List answers cross from the SQLite worker as one transferred buffer of values with keys and
// revisions beside it. Cloning one small buffer per item costs more than the query itself
// for large lists (a watch cache filling with 100,000 objects); a transfer costs nothing.
// The values arrive as views of that one buffer.

import type { Item, ListResult } from './interface.js';

export interface PackedList {
  packed: 'list';
  keys: string[];
  /** createRevision and modRevision of each item, in turn. */
  revisions: Float64Array;
  /** End offset of each item's value in `values`. */
  ends: Float64Array;
  values: ArrayBuffer;
  revision: number;
  more: boolean;
  remaining: number;
}

export function packList(list: ListResult): PackedList {
  const n = list.items.length;
  let total = 0;
  for (const item of list.items) total += item.value.byteLength;
  const values = new Uint8Array(total);
  const keys = new Array<string>(n);
  const revisions = new Float64Array(n * 2);
  const ends = new Float64Array(n);
  let offset = 0;
  for (let i = 0; i < n; i++) {
    const item = list.items[i] as Item;
    keys[i] = item.key;
    revisions[2 * i] = item.createRevision;
    revisions[2 * i + 1] = item.modRevision;
    values.set(item.value, offset);
    offset += item.value.byteLength;
    ends[i] = offset;
  }
  return { packed: 'list', keys, revisions, ends, values: values.buffer, revision: list.revision, more: list.more, remaining: list.remaining };
}

export function unpackList(packed: PackedList): ListResult {
  const n = packed.keys.length;
  const items = new Array<Item>(n);
  let start = 0;
  for (let i = 0; i < n; i++) {
    const end = packed.ends[i] as number;
    items[i] = {
      key: packed.keys[i] as string,
      value: new Uint8Array(packed.values, start, end - start),
      createRevision: packed.revisions[2 * i] as number,
      modRevision: packed.revisions[2 * i + 1] as number,
    };
    start = end;
  }
  return { items, revision: packed.revision, more: packed.more, remaining: packed.remaining };
}
