// The in-memory backend: the full revisioned semantics (history, snapshots, compaction,
// watch from any retained revision) without durability. For tests and throwaway servers.

import {
  CompactedError,
  ConflictError,
  KeyExistsError,
  NotFoundError,
  StorageError,
  TooLargeResourceVersionError,
  type Item,
  type ListOptions,
  type ListResult,
  type Storage,
  type StorageEvent,
} from './interface.js';
import { SortedKeys } from './keys.js';
import { pageLimit, readRevision } from './revisions.js';
import { WatchHub, type ProgressReporting } from './watch-hub.js';

interface Version {
  revision: number;
  /** Absent for a deletion. */
  item?: Item;
}

export interface MemoryStorageOptions {
  /** Live events a watch buffers before it falls back to replaying history. */
  watchBufferSize?: number;
  /**
   * Start with these contents at their revision, as a store compacted there: reads and
   * watches from the snapshot's revision on work, older ones are Compacted.
   */
  snapshot?: MemorySnapshot;
}

/** The latest items of a memory store at one revision, without history. Immutable, shareable. */
export interface MemorySnapshot {
  readonly revision: number;
  /** In key order. */
  readonly items: readonly Readonly<Item>[];
}

export class MemoryStorage implements Storage {
  readonly localRevision: boolean = true;
  private current = 0;
  private compacted = 0;
  private closed = false;
  private readonly versions = new Map<string, Version[]>();
  private readonly keys = new SortedKeys();
  /** Every event after the compacted revision, in revision order. */
  private log: StorageEvent[] = [];
  private readonly hub: WatchHub;

  constructor(opts: MemoryStorageOptions = {}) {
    this.hub = new WatchHub((prefix, after, limit) => Promise.resolve(this.history(prefix, after, limit)), opts.watchBufferSize ?? 10_000);
    if (opts.snapshot) this.restore(opts.snapshot);
  }

  /** The current items without history; a new store started from it answers as this one does now. */
  snapshot(): MemorySnapshot {
    this.checkOpen();
    const items: Item[] = [];
    for (const key of this.keys.slice(0, this.keys.size)) {
      const item = this.latest(key);
      if (item !== undefined) items.push(item);
    }
    // Items are never changed once written (every write makes a new one), so they are shared.
    return Object.freeze({ revision: this.current, items: Object.freeze(items) });
  }

  private restore(snapshot: MemorySnapshot): void {
    for (const item of snapshot.items) {
      // Readers key memos by Item identity: each store gets its own, over the same bytes.
      this.versions.set(item.key, [{ revision: item.modRevision, item: { ...item } }]);
      this.keys.add(item.key);
    }
    this.current = snapshot.revision;
    this.compacted = snapshot.revision;
  }

  async revision(): Promise<number> {
    this.checkOpen();
    return this.current;
  }

  async get(key: string, opts?: { atRevision?: number }): Promise<{ item?: Item; revision: number }> {
    this.checkOpen();
    const revision = readRevision(opts?.atRevision, this.current, this.compacted);
    const item = this.itemAt(key, revision);
    return item === undefined ? { revision } : { item, revision };
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.checkOpen();
    const revision = readRevision(opts.atRevision, this.current, this.compacted);
    const limit = pageLimit(opts.limit);
    const { from, to } = this.keys.range(prefix, opts.startKey);
    const items: Item[] = [];
    let remaining = 0;
    for (const key of this.keys.slice(from, to)) {
      const item = this.itemAt(key, revision);
      if (item === undefined) continue;
      if (items.length < limit) items.push(item);
      else remaining++;
    }
    return { items, revision, more: remaining > 0, remaining };
  }

  async create(key: string, value: Uint8Array): Promise<Item> {
    this.checkOpen();
    const prev = this.latest(key);
    if (prev !== undefined) throw new KeyExistsError(key);
    const revision = this.current + 1;
    const item: Item = { key, value: value.slice(), createRevision: revision, modRevision: revision };
    this.commit({ type: 'put', key, revision, item }, { revision, item });
    return item;
  }

  async update(key: string, value: Uint8Array, ifModRevision?: number): Promise<Item> {
    this.checkOpen();
    const prev = this.checkedLatest(key, ifModRevision);
    const revision = this.current + 1;
    const item: Item = { key, value: value.slice(), createRevision: prev.createRevision, modRevision: revision };
    this.commit({ type: 'put', key, revision, item, prev }, { revision, item });
    return item;
  }

  async delete(key: string, ifModRevision?: number): Promise<Item> {
    this.checkOpen();
    const prev = this.checkedLatest(key, ifModRevision);
    const revision = this.current + 1;
    this.commit({ type: 'delete', key, revision, prev }, { revision });
    return prev;
  }

  watch(prefix: string, afterRevision: number, signal: AbortSignal): AsyncIterable<StorageEvent> & ProgressReporting {
    return this.hub.watch(prefix, afterRevision, signal);
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    if (revision <= this.compacted) return;
    if (revision > this.current) throw new TooLargeResourceVersionError(revision, this.current);
    for (const [key, versions] of this.versions) {
      let keep = versions.length - 1;
      while (keep > 0 && (versions[keep] as Version).revision > revision) keep--;
      const first = versions[keep] as Version;
      // A deletion at or before the compaction revision leaves nothing any read can see.
      const drop = first.revision <= revision && first.item === undefined ? keep + 1 : keep;
      if (drop === 0) continue;
      versions.splice(0, drop);
      if (versions.length === 0) {
        this.versions.delete(key);
        this.keys.remove(key);
      }
    }
    this.log = this.log.slice(this.firstAfter(revision));
    this.compacted = revision;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.hub.close();
  }

  private checkOpen(): void {
    if (this.closed) throw new StorageError('storage is closed');
  }

  private commit(event: StorageEvent, version: Version): void {
    let versions = this.versions.get(event.key);
    if (versions === undefined) {
      versions = [];
      this.versions.set(event.key, versions);
      this.keys.add(event.key);
    }
    versions.push(version);
    this.log.push(event);
    this.current = event.revision;
    this.hub.publish(event);
  }

  private latest(key: string): Item | undefined {
    const versions = this.versions.get(key);
    return versions?.[versions.length - 1]?.item;
  }

  private checkedLatest(key: string, ifModRevision: number | undefined): Item {
    const prev = this.latest(key);
    if (prev === undefined) throw new NotFoundError(key);
    if (ifModRevision !== undefined && ifModRevision !== prev.modRevision) {
      throw new ConflictError(key, ifModRevision, prev.modRevision);
    }
    return prev;
  }

  private itemAt(key: string, revision: number): Item | undefined {
    const versions = this.versions.get(key);
    if (versions === undefined) return undefined;
    for (let i = versions.length - 1; i >= 0; i--) {
      const v = versions[i] as Version;
      if (v.revision <= revision) return v.item;
    }
    return undefined;
  }

  private firstAfter(revision: number): number {
    let lo = 0;
    let hi = this.log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.log[mid] as StorageEvent).revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private history(prefix: string, after: number, limit: number): StorageEvent[] {
    if (after < this.compacted) throw new CompactedError(after, this.compacted);
    const out: StorageEvent[] = [];
    for (let i = this.firstAfter(after); i < this.log.length && out.length < limit; i++) {
      const event = this.log[i] as StorageEvent;
      if (event.key.startsWith(prefix)) out.push(event);
    }
    return out;
  }
}
