// A watch event as a Store streams it. An event that is the same for every watcher of one
// served version says so (`shared`), so that the watch handler encodes it once per encoding
// for all of them rather than once per watcher.
import type { WatchEvent } from '../apimachinery/types.js';

/** Encodings of recent events, each computed once (`codec/encoding-memo.ts`). */
export interface EventEncodingMemo {
  get(source: object, key: string, encode: () => Uint8Array): Uint8Array;
}

/**
 * What makes a watch event the same for every watcher of one served version: the stored item
 * it answers (one object per stored revision) and the revision it is answered at. Its
 * encodings are kept in `encodings`.
 */
export interface SharedWatchEvent {
  readonly source: object;
  readonly revision: number;
  readonly encodings: EventEncodingMemo;
}

export interface StoreWatchEvent extends WatchEvent {
  /** Present when every watcher of the served version gets this very event. */
  readonly shared?: SharedWatchEvent;
}
