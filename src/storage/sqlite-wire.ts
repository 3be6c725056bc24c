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

/**
 * The items of a query, their values copied as they are read into one buffer and handed back
 * as views of it. Holding every row's own buffer until the list is packed left the worker
 * with as many small allocations as rows, which its allocator kept after they were freed (a
 * whole store's worth, for the watch cache's first list); read one row at a time, each row's
 * buffer is garbage at once and its memory serves the next. `packList` then sends the buffer as is.
 */
export function itemsInOneBuffer(rows: Iterable<Item>): Item[] {
  const keys: string[] = [];
  const revisions: number[] = [];
  const ends: number[] = [];
  let values = new Uint8Array(64 * 1024);
  let offset = 0;
  for (const row of rows) {
    const size = row.value.byteLength;
    if (offset + size > values.byteLength) {
      const grown = new Uint8Array(Math.max(values.byteLength * 2, offset + size));
      grown.set(values.subarray(0, offset));
      values = grown;
    }
    values.set(row.value, offset);
    offset += size;
    keys.push(row.key);
    revisions.push(row.createRevision, row.modRevision);
    ends.push(offset);
  }
  const exact = offset === values.byteLength ? values : values.slice(0, offset);
  const items = new Array<Item>(keys.length);
  let start = 0;
  for (let i = 0; i < keys.length; i++) {
    const end = ends[i] as number;
    items[i] = {
      key: keys[i] as string,
      value: new Uint8Array(exact.buffer, start, end - start),
      createRevision: revisions[2 * i] as number,
      modRevision: revisions[2 * i + 1] as number,
    };
    start = end;
  }
  return items;
}

/** The buffer the values of `items` fill, one after the other from its start, if there is one. */
function sharedBuffer(items: readonly Item[]): ArrayBuffer | undefined {
  const first = items[0];
  if (first === undefined || !(first.value.buffer instanceof ArrayBuffer)) return undefined;
  const buffer = first.value.buffer;
  let offset = 0;
  for (const item of items) {
    if (item.value.buffer !== buffer || item.value.byteOffset !== offset) return undefined;
    offset += item.value.byteLength;
  }
  return offset === buffer.byteLength ? buffer : undefined;
}

export function packList(list: ListResult): PackedList {
  const n = list.items.length;
  const shared = sharedBuffer(list.items);
  if (shared !== undefined) {
    const keys = new Array<string>(n);
    const revisions = new Float64Array(n * 2);
    const ends = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const item = list.items[i] as Item;
      keys[i] = item.key;
      revisions[2 * i] = item.createRevision;
      revisions[2 * i + 1] = item.modRevision;
      ends[i] = item.value.byteOffset + item.value.byteLength;
    }
    return { packed: 'list', keys, revisions, ends, values: shared, revision: list.revision, more: list.more, remaining: list.remaining };
  }
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
