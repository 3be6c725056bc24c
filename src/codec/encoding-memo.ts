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

/** What makes a watch event the same for every watcher (see `SharedWatchEvent` in `rest/watch.ts`). */
export interface DescribedEvent {
  readonly source: object;
  readonly type: string;
  readonly revision: number;
  readonly encodings: EventEncodings;
}

/** Each recent event's encodings, shared by the watchers of one served version. */
export class EventEncodings extends RecentEventMemo<Uint8Array> {
  /** Per stored item, the events it was answered in (an item is answered in one to three). */
  private readonly described = new WeakMap<object, DescribedEvent[]>();

  constructor(budget = ENCODINGS_BUDGET) {
    super(budget, (bytes) => bytes.byteLength);
  }

  /** The source of the most recent bookmark's description. */
  private mark: { revision: number } | undefined;

  /** The description of a BOOKMARK at `revision`, one for every watcher while it is the latest. */
  describeBookmark(revision: number): DescribedEvent {
    if (this.mark?.revision !== revision) this.mark = { revision };
    return this.describe(this.mark, 'BOOKMARK', revision);
  }

  /**
   * The one description of `source` answered as `type` at `revision`, for every watcher that
   * gets it: its encodings are kept under it, so a watcher finds them by identity.
   */
  describe(source: object, type: string, revision: number): DescribedEvent {
    let list = this.described.get(source);
    if (list === undefined) {
      list = [];
      this.described.set(source, list);
    }
    for (const d of list) if (d.type === type && d.revision === revision) return d;
    const d: DescribedEvent = { source, type, revision, encodings: this };
    list.push(d);
    return d;
  }
}
