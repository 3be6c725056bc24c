// List answers cross from the SQLite worker as transferred buffers of values with keys and
// revisions beside them. Cloning one small buffer per item costs more than the query itself
// for large lists (a watch cache filling with 100,000 objects); a transfer costs nothing.
// The values arrive as views of those buffers.

import type { Item, ListResult } from './interface.js';

export interface PackedList {
  packed: 'list';
  keys: string[];
  /** createRevision and modRevision of each item, in turn. */
  revisions: Float64Array;
  /** Index in `values` of each item's buffer. */
  chunks: Uint32Array;
  /** Start and end offset of each item's value in its buffer, in turn. */
  spans: Float64Array;
  values: ArrayBuffer[];
  revision: number;
  more: boolean;
  remaining: number;
}

/**
 * The sizes of the buffers rows are read into: the first small, for the many short lists,
 * each next twice as large up to the last; a larger value gets a buffer of its own.
 */
const FIRST_CHUNK_BYTES = 64 * 1024;
const CHUNK_BYTES = 4 * 1024 * 1024;

/** Buffers `itemsInChunks` filled: only these may be handed over whole. */
const chunkBuffers = new WeakSet<ArrayBuffer>();

/**
 * The items of a query, their values copied as they are read into buffers of a few MiB and
 * handed back as views of them. Holding every row's own buffer until the list is packed left
 * the worker with as many small allocations as rows, which its allocator kept after they were
 * freed (a whole store's worth, for the watch cache's first list); read one row at a time,
 * each row's buffer is garbage at once and its memory serves the next. Fixed-size buffers,
 * not one that grows, leave no outgrown copies behind in a worker that may not collect
 * garbage again for a long time. `packList` sends these buffers as they are.
 */
export function itemsInChunks(rows: Iterable<Item>, chunkBytes = CHUNK_BYTES, firstChunkBytes = FIRST_CHUNK_BYTES): Item[] {
  const items: Item[] = [];
  let next = Math.min(firstChunkBytes, chunkBytes);
  let chunk = new Uint8Array(0);
  let offset = 0;
  const seal = (): void => {
    if (chunk.byteLength > 0) chunkBuffers.add(chunk.buffer);
  };
  for (const row of rows) {
    const size = row.value.byteLength;
    if (offset + size > chunk.byteLength) {
      seal();
      chunk = new Uint8Array(Math.max(next, size));
      next = Math.min(next * 2, chunkBytes);
      offset = 0;
    }
    chunk.set(row.value, offset);
    items.push({ key: row.key, value: new Uint8Array(chunk.buffer, offset, size), createRevision: row.createRevision, modRevision: row.modRevision });
    offset += size;
  }
  seal();
  return items;
}

export function packList(list: ListResult): PackedList {
  return packChunks(list) ?? packCopy(list);
}

/** The list with the buffers `itemsInChunks` filled, when every value is a view of one of them. */
function packChunks(list: ListResult): PackedList | undefined {
  const n = list.items.length;
  const values: ArrayBuffer[] = [];
  const chunks = new Uint32Array(n);
  const spans = new Float64Array(n * 2);
  for (let i = 0; i < n; i++) {
    const value = (list.items[i] as Item).value;
    const buffer = value.buffer;
    if (!(buffer instanceof ArrayBuffer) || !chunkBuffers.has(buffer)) return undefined;
    if (values[values.length - 1] !== buffer) {
      // A buffer that came back after another would be transferred twice.
      if (values.includes(buffer)) return undefined;
      values.push(buffer);
    }
    chunks[i] = values.length - 1;
    spans[2 * i] = value.byteOffset;
    spans[2 * i + 1] = value.byteOffset + value.byteLength;
  }
  return { ...metaOf(list), chunks, spans, values };
}

/** The list with its values copied into one buffer. */
function packCopy(list: ListResult): PackedList {
  const n = list.items.length;
  let total = 0;
  for (const item of list.items) total += item.value.byteLength;
  const values = new Uint8Array(total);
  const spans = new Float64Array(n * 2);
  let offset = 0;
  for (let i = 0; i < n; i++) {
    const item = list.items[i] as Item;
    values.set(item.value, offset);
    spans[2 * i] = offset;
    offset += item.value.byteLength;
    spans[2 * i + 1] = offset;
  }
  return { ...metaOf(list), chunks: new Uint32Array(n), spans, values: [values.buffer] };
}

function metaOf(list: ListResult): Omit<PackedList, 'chunks' | 'spans' | 'values'> {
  const n = list.items.length;
  const keys = new Array<string>(n);
  const revisions = new Float64Array(n * 2);
  for (let i = 0; i < n; i++) {
    const item = list.items[i] as Item;
    keys[i] = item.key;
    revisions[2 * i] = item.createRevision;
    revisions[2 * i + 1] = item.modRevision;
  }
  return { packed: 'list', keys, revisions, revision: list.revision, more: list.more, remaining: list.remaining };
}

export function unpackList(packed: PackedList): ListResult {
  const n = packed.keys.length;
  const items = new Array<Item>(n);
  for (let i = 0; i < n; i++) {
    const start = packed.spans[2 * i] as number;
    items[i] = {
      key: packed.keys[i] as string,
      value: new Uint8Array(packed.values[packed.chunks[i] as number] as ArrayBuffer, start, (packed.spans[2 * i + 1] as number) - start),
      createRevision: small(packed.revisions[2 * i] as number),
      modRevision: small(packed.revisions[2 * i + 1] as number),
    };
  }
  return { items, revision: packed.revision, more: packed.more, remaining: packed.remaining };
}

/**
 * A revision read from a Float64Array, as a small integer when it is one: a double stored in
 * an object takes a boxed number of its own (32 bytes an item in a cache of whole stores).
 */
function small(revision: number): number {
  return revision <= 0x7fffffff ? revision | 0 : revision;
}
