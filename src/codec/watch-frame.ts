// Watch framing: each event is one `{"type","object"}` document. In JSON the documents
// are newline-terminated, so a client can read them one line at a time.
import type { WatchEvent } from '../apimachinery/types.js';
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
