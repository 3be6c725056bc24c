// Work derived from a stored item (its decoded object, its encoding in one media type) done
// once per item revision, however many watchers and lists need it. The watch cache hands out
// the same Item object for one revision to every reader, so the memo is keyed by that object
// and goes away with it.

import type { Item } from './interface.js';

export class ItemMemo {
  private readonly memo = new WeakMap<Item, Map<string, unknown>>();

  /** The value computed for `item` under `key` (say, a media type), computed on first use. */
  get<T>(item: Item, key: string, compute: (item: Item) => T): T {
    let entries = this.memo.get(item);
    if (entries === undefined) {
      entries = new Map();
      this.memo.set(item, entries);
    }
    if (entries.has(key)) return entries.get(key) as T;
    const value = compute(item);
    entries.set(key, value);
    return value;
  }
}
