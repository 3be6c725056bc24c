// Bytes of one watch event in one encoding, computed once however many watchers send it.
// Every watcher of a resource gets each change within moments of the others, so the memo
// only has to outlive that moment: it keeps the most recent events' encodings and forgets
// older ones (a watcher that falls that far behind encodes for itself), so its memory does
// not grow with the watch cache's history.

/** How many events' encodings are kept; a burst larger than this is encoded again by late watchers. */
const DEFAULT_EVENTS = 4096;

export class EventEncodings {
  private readonly events = new Map<object, Map<string, Uint8Array>>();

  constructor(private readonly capacity = DEFAULT_EVENTS) {}

  /**
   * `encode()` for the event of `source` (one object per stored revision) under `key` (event
   * type, revision, media type, representation), remembered while the event is recent.
   */
  get(source: object, key: string, encode: () => Uint8Array): Uint8Array {
    let entries = this.events.get(source);
    if (entries === undefined) {
      entries = new Map();
      this.events.set(source, entries);
      if (this.events.size > this.capacity) this.events.delete(this.events.keys().next().value as object);
    }
    let bytes = entries.get(key);
    if (bytes === undefined) {
      bytes = encode();
      entries.set(key, bytes);
    }
    return bytes;
  }
}
