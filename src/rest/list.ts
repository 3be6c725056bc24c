// A list as a Store answers it: its items may be produced on demand from a snapshot, so that a
// LIST answer streams them one at a time (`codec/json-list.ts`) instead of building them all.
import type { KubeList } from '../apimachinery/types.js';

/** An element as stored: its bytes are its compact JSON without `metadata.resourceVersion`, when checked so. */
export interface StoredElement {
  /** What the check is remembered by: one object per stored revision. */
  item: object;
  bytes: Uint8Array;
  resourceVersion: string;
}

/**
 * The items of a list answered from a snapshot without being built: `count` of them, each
 * produced by `at` when it is about to be encoded and dropped after, so a streamed answer
 * starts at once and holds one batch at a time. Every call of `at` builds a new object.
 */
export interface LazyItems {
  readonly count: number;
  at(i: number): unknown;
  /** Item `i` as stored, whose bytes may be the answer's JSON but for the resource version. */
  stored?(i: number): StoredElement | undefined;
  /** The producer's memo of which stored items are their answer (one per served version). */
  splices?: WeakMap<object, StoredSplice>;
}

/**
 * How an item's answer is made of its stored bytes (`codec/json-list.ts`): where the resource
 * version goes (a number; -1 when the bytes are not the answer), or the slices of the stored
 * bytes whose concatenation with the resource version is the answer (an Int32Array).
 */
export type StoredSplice = number | Int32Array;

/** A list as a Store answers it. */
export interface StoreList extends KubeList {
  /**
   * Present when the items are produced on demand (a list from the watch cache): a reader
   * that encodes them one at a time takes them from here and never reads `items`, which
   * builds them all when first read. Not enumerable, so never encoded or copied.
   */
  readonly lazy?: LazyItems;
}
