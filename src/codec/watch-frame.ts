// Watch framing: each event is one `{"type","object"}` document. In JSON the documents
// are newline-terminated, so a client can read them one line at a time.
import type { WatchEvent } from '../apimachinery/types.js';
import type { EventEncodings } from './encoding-memo.js';
import type { Serializer } from './serializer.js';

interface WatchFramer {
  frame(event: { type: WatchEvent['type']; object: unknown }): Uint8Array;
}

/** Frames events with a streaming serializer (JSON: one line per event, never indented). */
export function watchFramer(serializer: Serializer): WatchFramer {
  return {
    frame(event) {
      if (serializer.encodeWatchEvent) return serializer.encodeWatchEvent(event);
      return serializer.encode({ type: event.type, object: event.object }, { pretty: false });
    },
  };
}

/**
 * What makes a watch event the same for every watcher of one served version: the stored
 * item (one object per stored revision) and the revision the object is answered at. Watchers
 * that frame it in one encoding share the bytes through `encodings`.
 */
export interface SharedEvent {
  source: object;
  revision: number;
  encodings: EventEncodings;
}

// Carried by the event itself (a symbol key: never encoded, never copied into documents).
const SHARED = Symbol('shared watch event');

/** Marks `event` as the same for every watcher that gets it (see SharedEvent). */
export function withSharedEvent<E extends object>(event: E, how: SharedEvent): E {
  (event as E & { [SHARED]?: SharedEvent })[SHARED] = how;
  return event;
}

/**
 * The frame of `event` in one encoding (`key`: media type and representation), computed
 * by the first watcher that sends it and reused by the others; `frame` when the event is
 * this watcher's own.
 */
export function sharedFrame(event: WatchEvent, key: string, frame: () => Uint8Array): Uint8Array {
  const how = (event as WatchEvent & { [SHARED]?: SharedEvent })[SHARED];
  if (how === undefined) return frame();
  return how.encodings.get(how.source, `${event.type}@${how.revision}|${key}`, frame);
}
