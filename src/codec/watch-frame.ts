// Watch framing: each event is one `{"type","object"}` document. In JSON the documents
// are newline-terminated, so a client can read them one line at a time.
import type { WatchEvent } from '../apimachinery/types.js';
import type { StoreWatchEvent } from '../rest/index.js';
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
 * The frame of `event` in one encoding (`key`: media type and representation), computed
 * by the first watcher that sends it and reused by the others; `frame` when the event is
 * this watcher's own.
 */
export function sharedFrame(event: StoreWatchEvent, key: string, frame: () => Uint8Array): Uint8Array {
  const shared = event.shared;
  if (shared === undefined) return frame();
  // One description per stored item, event type and revision (`EventEncodings.describe`):
  // its encodings are found by identity, without a key built per watcher.
  return shared.encodings.get(shared, key, frame);
}
