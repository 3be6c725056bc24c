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
 * it answers (one object per stored revision), the event type and the revision it is answered
 * at. There is one such object per item, type and revision, and its encodings are kept in
 * `encodings` under the object itself, so that a watcher finds them by identity.
 */
export interface SharedWatchEvent {
  readonly source: object;
  readonly type: string;
  readonly revision: number;
  readonly encodings: EventEncodingMemo;
}

export interface StoreWatchEvent extends WatchEvent {
  /** Present when every watcher of the served version gets this very event. */
  readonly shared?: SharedWatchEvent;
}

/**
 * A watch taken event by event without waiting: `poll` answers the next event, or undefined
 * when none is ready (then `done` says whether the watch has ended). `wait` calls its callback
 * once, when `poll` may answer again; `close` ends the watch. A consumer that writes events
 * to many clients polls while each can take more, and needs no promise per event.
 */
export interface WatchCursor {
  poll(): StoreWatchEvent | undefined;
  readonly done: boolean;
  wait(wake: () => void): void;
  close(): void;
}

/** A watch a consumer may iterate, or take through a cursor (one or the other). */
export interface StoreWatch extends AsyncIterable<StoreWatchEvent> {
  cursor?(): WatchCursor;
}
