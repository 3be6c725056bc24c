// Work derived from one watch event (its bytes in one encoding, its object decoded for
// selectors), done once however many watchers need it. Every watcher of a resource gets each
// change within moments of the others, so the memo only has to outlive that moment: it keeps
// the most recent events' values within a budget of bytes and forgets older ones (a watcher
// that falls that far behind computes for itself), so its memory does not grow with the
// watch cache's history or with the size of the objects.

interface Entry<V> {
  values: Map<string, V>;
  weight: number;
}

/** Values derived from recent events, by source (one object per stored revision) and key. */
export class RecentEventMemo<V> {
  private readonly events = new Map<object, Entry<V>>();
  private weight = 0;

  /**
   * @param budget about how many bytes the kept values may weigh together (the newest event is always kept)
   * @param weigh the bytes one value of `source` holds
   */
  constructor(
    private readonly budget: number,
    private readonly weigh: (value: V, source: object) => number,
  ) {}

  /** `compute()` for `source` under `key`, remembered while the event is recent. */
  get(source: object, key: string, compute: () => V): V {
    let entry = this.events.get(source);
    if (entry === undefined) {
      entry = { values: new Map(), weight: 0 };
      this.events.set(source, entry);
    }
    let value = entry.values.get(key);
    if (value === undefined) {
      value = compute();
      entry.values.set(key, value);
      const w = this.weigh(value, source);
      entry.weight += w;
      this.weight += w;
      this.evict(source);
    }
    return value;
  }

  private evict(keep: object): void {
    for (const [source, entry] of this.events) {
      if (this.weight <= this.budget) return;
      if (source === keep) continue;
      this.events.delete(source);
      this.weight -= entry.weight;
    }
  }
}

/** How many bytes of recent events' encodings a served version keeps for its watchers. */
const ENCODINGS_BUDGET = 16 * 1024 * 1024;

/** Each recent event's encodings, shared by the watchers of one served version. */
export class EventEncodings extends RecentEventMemo<Uint8Array> {
  constructor(budget = ENCODINGS_BUDGET) {
    super(budget, (bytes) => bytes.byteLength);
  }
}
