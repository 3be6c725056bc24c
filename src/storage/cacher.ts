// The watch cache of one key prefix: an initial list, then the store's watch, applied to an
// in-memory copy of the current items (in key order) and a ring of recent events. Watches
// from any revision inside the ring and lists at "any" or "not older than" are served from
// memory; a consistent list first waits until the cache has reached the store's revision.

import { setTimeout as sleep } from 'node:timers/promises';
import {
  StorageError,
  TooLargeResourceVersionError,
  TooOldResourceVersionError,
  type CacheCursor,
  type CacheEvent,
  type CacheListResult,
  type CacheWatchOptions,
  type Cacher,
  type Item,
  type ListResult,
  type Storage,
  type StorageEvent,
} from './interface.js';
import { compareKeys, prefixEnd, SortedKeys } from './keys.js';
import { pageLimit } from './revisions.js';
import type { ProgressReporting } from './watch-hub.js';
import { abortController } from '../apimachinery/abort.js';

export interface CacherOptions {
  /** How long events stay in the ring (default 5 minutes). */
  historyWindowMs?: number;
  /** The most events the ring holds, whatever their age (default 100,000). */
  maxEvents?: number;
  /** Live events one watcher may have pending before it is closed (default 1,000). */
  watcherBufferSize?: number;
  /** How often watchers that asked for bookmarks get one (default 30 seconds). */
  bookmarkIntervalMs?: number;
  /** Default wait for waitForRevision and waitForFresh (default 3 seconds). */
  freshTimeoutMs?: number;
  /** Page size of the initial list (default 10,000; 0 reads the whole prefix at once). */
  listPageSize?: number;
  /** The clock, for tests of the history window. */
  now?: () => number;
  /**
   * The store's contents under a prefix that covers this cache's, at one revision, read
   * once for many caches: the first fill takes its part of it instead of reading the store
   * (when the read failed, the cache reads the store itself).
   */
  initialList?: { prefix: string; list: Promise<ListResult | undefined> };
}

interface RingEntry {
  event: StorageEvent;
  at: number;
}

/**
 * One watcher's events: the backlog from the ring when it started, then the live events the
 * cache pushes. Its consumer takes them synchronously and asks to be woken when it found none,
 * so that a change fans out to every watcher without a promise per watcher.
 */
class CacheWatcher implements CacheCursor {
  private backlog: StorageEvent[];
  private next = 0;
  private live: CacheEvent[] = [];
  private head = 0;
  private wake: (() => void) | undefined;
  ended = false;

  constructor(
    readonly prefix: string,
    readonly bookmarks: boolean,
    private readonly capacity: number,
    backlog: StorageEvent[],
    private readonly release: (w: CacheWatcher) => void,
  ) {
    this.backlog = backlog;
  }

  /** Queues an event; a watcher that is a full buffer of live events behind is ended instead. */
  push(event: CacheEvent): void {
    if (this.ended) return;
    if (this.live.length - this.head >= this.capacity) {
      // Progress marks are optional; a store event that does not fit ends the watch.
      if (event.type === 'bookmark') return;
      this.end();
      return;
    }
    this.live.push(event);
    this.notify();
  }

  take(): CacheEvent | undefined {
    if (this.ended) return undefined;
    if (this.next < this.backlog.length) {
      const event = this.backlog[this.next++];
      if (this.next === this.backlog.length) {
        this.backlog = [];
        this.next = 0;
      }
      return event;
    }
    if (this.head >= this.live.length) return undefined;
    const event = this.live[this.head++];
    if (this.head === this.live.length) {
      this.live = [];
      this.head = 0;
    }
    return event;
  }

  /** Whether an event is queued (taking it would not wait). */
  pending(): boolean {
    return !this.ended && (this.next < this.backlog.length || this.head < this.live.length);
  }

  wait(wake: () => void): void {
    if (this.ended || this.pending()) wake();
    else this.wake = wake;
  }

  /** Ends the watch: queued events are dropped and the consumer is woken to see the end. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.backlog = [];
    this.live = [];
    this.head = 0;
    this.release(this);
    this.notify();
  }

  close(): void {
    this.end();
  }

  private notify(): void {
    const wake = this.wake;
    if (wake === undefined) return;
    this.wake = undefined;
    wake();
  }
}

/**
 * The watchers by the prefix they watch, so that a change is matched against each prefix
 * once, not against each watcher: with a few prefixes (a resource, its namespaces) every
 * group is tested; with many, only the groups whose prefix is a `/`-ended start of the key.
 */
class WatcherIndex {
  private readonly byPrefix = new Map<string, Set<CacheWatcher>>();
  /** Prefixes that do not end in `/`, tested one by one. */
  private readonly odd = new Set<string>();

  add(w: CacheWatcher): void {
    let group = this.byPrefix.get(w.prefix);
    if (group === undefined) {
      group = new Set();
      this.byPrefix.set(w.prefix, group);
      if (!w.prefix.endsWith('/')) this.odd.add(w.prefix);
    }
    group.add(w);
  }

  delete(w: CacheWatcher): void {
    const group = this.byPrefix.get(w.prefix);
    if (group === undefined || !group.delete(w) || group.size > 0) return;
    this.byPrefix.delete(w.prefix);
    this.odd.delete(w.prefix);
  }

  /** Every watcher, as a copy (ending one removes it). */
  all(): CacheWatcher[] {
    const out: CacheWatcher[] = [];
    for (const group of this.byPrefix.values()) for (const w of group) out.push(w);
    return out;
  }

  dispatch(event: StorageEvent): void {
    const key = event.key;
    if (this.byPrefix.size <= 16) {
      for (const [prefix, group] of this.byPrefix) if (key.startsWith(prefix)) push(group, event);
      return;
    }
    for (let slash = key.indexOf('/'); slash >= 0; slash = key.indexOf('/', slash + 1)) {
      const group = this.byPrefix.get(key.slice(0, slash + 1));
      if (group !== undefined) push(group, event);
    }
    for (const prefix of this.odd) if (key.startsWith(prefix)) push(this.byPrefix.get(prefix)!, event);
  }
}

function push(group: Set<CacheWatcher>, event: StorageEvent): void {
  for (const w of group) w.push(event);
}

interface RevisionWaiter {
  revision: number;
  resolve(): void;
}

const progressPollMs = 2;

export class WatchCache implements Cacher {
  private readonly items = new Map<string, Item>();
  private readonly keys = new SortedKeys();
  private current = 0;
  /** The revision of the newest change the items reflect: the last event applied, or the load. */
  private changed = 0;
  private ring: RingEntry[] = [];
  private ringHead = 0;
  /** Watches after this revision can be served from the ring. */
  private oldest = 0;
  private readonly watchers = new WatcherIndex();
  private waiters: RevisionWaiter[] = [];
  private progress: ProgressReporting | undefined;
  private readonly abort = new AbortController();
  private stopped = false;
  private readonly loaded: Promise<void>;
  private markLoaded!: () => void;
  private pollTimer: NodeJS.Timeout | undefined;
  private readonly bookmarkTimer: NodeJS.Timeout;
  private readonly running: Promise<void>;
  private readonly opts: Required<Omit<CacherOptions, 'initialList'>>;
  private initialList: CacherOptions['initialList'];

  constructor(
    private readonly storage: Storage,
    readonly prefix: string,
    opts: CacherOptions = {},
  ) {
    this.opts = {
      historyWindowMs: opts.historyWindowMs ?? 5 * 60_000,
      maxEvents: opts.maxEvents ?? 100_000,
      watcherBufferSize: opts.watcherBufferSize ?? 1000,
      bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 30_000,
      freshTimeoutMs: opts.freshTimeoutMs ?? 3000,
      listPageSize: opts.listPageSize ?? 10_000,
      now: opts.now ?? Date.now,
    };
    this.initialList = opts.initialList !== undefined && prefix.startsWith(opts.initialList.prefix) ? opts.initialList : undefined;
    this.loaded = new Promise((resolve) => {
      this.markLoaded = resolve;
    });
    this.bookmarkTimer = setInterval(() => this.bookmarkNow(), this.opts.bookmarkIntervalMs);
    this.bookmarkTimer.unref();
    this.running = this.run();
  }

  ready(): Promise<void> {
    return this.loaded;
  }

  revision(): number {
    this.catchUpProgress();
    return this.current;
  }

  holdsRevision(revision: number): boolean {
    this.catchUpProgress();
    return this.changed <= revision && revision <= this.current;
  }

  /** The oldest revision a watch may start after. */
  oldestRevision(): number {
    return this.oldest;
  }

  async waitForRevision(revision: number, timeoutMs = this.opts.freshTimeoutMs): Promise<void> {
    await this.loaded;
    this.catchUpProgress();
    if (this.current >= revision) return;
    if (this.stopped) throw new StorageError('watch cache is stopped');
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new TooLargeResourceVersionError(revision, this.current));
      }, timeoutMs);
      const waiter: RevisionWaiter = {
        revision,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      this.waiters.push(waiter);
      this.pollProgress();
    });
  }

  async waitForFresh(timeoutMs = this.opts.freshTimeoutMs): Promise<number> {
    const target = await this.storage.revision();
    await this.waitForRevision(target, timeoutMs);
    return this.current;
  }

  get(key: string): Item | undefined {
    return this.items.get(key);
  }

  list(opts: { prefix?: string; startKey?: string; limit?: number } = {}): CacheListResult {
    this.catchUpProgress();
    const limit = pageLimit(opts.limit);
    const { from, to } = this.keys.range(opts.prefix ?? this.prefix, opts.startKey);
    const end = Math.min(to, from + limit);
    const items: Item[] = [];
    for (const key of this.keys.slice(from, end)) items.push(this.items.get(key) as Item);
    const remaining = to - end;
    return { items, revision: this.current, more: remaining > 0, remaining };
  }

  watch(prefix: string, afterRevision: number, signal: AbortSignal, opts: CacheWatchOptions = {}): AsyncIterable<CacheEvent> {
    return { [Symbol.asyncIterator]: () => this.serve(prefix, afterRevision, signal, opts.bookmarks ?? false) };
  }

  /** Sends every watcher that asked for bookmarks the cache's current revision. */
  bookmarkNow(): void {
    this.catchUpProgress();
    const mark: CacheEvent = { type: 'bookmark', revision: this.current };
    for (const w of this.watchers.all()) if (w.bookmarks) w.push(mark);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    abortController(this.abort);
    clearInterval(this.bookmarkTimer);
    if (this.pollTimer !== undefined) clearInterval(this.pollTimer);
    for (const w of this.watchers.all()) w.end();
    await this.running;
  }

  async cursor(prefix: string, after: number, opts: CacheWatchOptions = {}): Promise<CacheCursor> {
    if (!prefix.startsWith(this.prefix) && !this.prefix.startsWith(prefix)) {
      throw new StorageError(`watch of ${prefix} asked of the watch cache of ${this.prefix}`);
    }
    await this.loaded;
    if (after > this.current) await this.waitForRevision(after);
    if (after < this.oldest) throw new TooOldResourceVersionError(after, this.oldest);
    // Reading the ring and registering happen in one turn, so no event falls in between.
    const backlog: StorageEvent[] = [];
    for (let i = this.firstAfter(after); i < this.ring.length; i++) {
      const event = (this.ring[i] as RingEntry).event;
      if (event.key.startsWith(prefix)) backlog.push(event);
    }
    const watcher = new CacheWatcher(prefix, opts.bookmarks ?? false, this.opts.watcherBufferSize, backlog, (w) => this.watchers.delete(w));
    if (this.stopped) watcher.end();
    else this.watchers.add(watcher);
    return watcher;
  }

  private async *serve(prefix: string, after: number, signal: AbortSignal, bookmarks: boolean): AsyncGenerator<CacheEvent> {
    if (signal.aborted) return;
    const watcher = await this.cursor(prefix, after, { bookmarks });
    if (signal.aborted) {
      watcher.close();
      return;
    }
    const onAbort = (): void => watcher.close();
    signal.addEventListener('abort', onAbort);
    try {
      for (;;) {
        const event = watcher.take();
        if (event !== undefined) {
          yield event;
          continue;
        }
        if (watcher.ended) return;
        await new Promise<void>((resolve) => watcher.wait(resolve));
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      watcher.close();
    }
  }

  private async run(): Promise<void> {
    let backoffMs = 100;
    while (!this.stopped) {
      try {
        await this.load();
        backoffMs = 100;
        const watch = this.storage.watch(this.prefix, this.current, this.abort.signal);
        this.progress = 'progressRevision' in watch ? (watch as AsyncIterable<StorageEvent> & ProgressReporting) : undefined;
        // A wait for a revision written elsewhere in the store ends as soon as the watch has
        // caught up, not at the next poll: a consistent read right after a write is not slowed.
        if (this.progress) this.progress.onCaughtUp = () => this.caughtUp();
        for await (const event of watch) this.apply(event);
        if (this.stopped) return;
        throw new StorageError('storage watch ended');
      } catch {
        if (this.stopped) return;
        // The cache restarts from a fresh list; its watchers re-watch, as after any break.
        this.progress = undefined;
        for (const w of this.watchers.all()) w.end();
        await sleep(backoffMs, undefined, { signal: this.abort.signal, ref: false }).catch(() => undefined);
        backoffMs = Math.min(backoffMs * 2, 5000);
      }
    }
  }

  private async load(): Promise<void> {
    const shared = this.initialList;
    this.initialList = undefined;
    const whole = shared === undefined ? undefined : await shared.list.catch(() => undefined);
    const { items, revision } = whole !== undefined ? { items: itemsUnder(whole.items, this.prefix), revision: whole.revision } : await this.read();
    this.items.clear();
    for (const item of items) this.items.set(item.key, item);
    this.keys.reset(items.map((item) => item.key));
    this.ring = [];
    this.ringHead = 0;
    this.oldest = revision;
    this.current = revision;
    this.changed = revision;
    this.markLoaded();
    this.releaseWaiters();
  }

  /** The whole prefix from the store at one revision, in pages of `listPageSize`. */
  private async read(): Promise<{ items: Item[]; revision: number }> {
    const pageSize = this.opts.listPageSize;
    let page = await this.storage.list(this.prefix, { limit: pageSize });
    const revision = page.revision;
    const items: Item[] = [...page.items];
    while (page.more && !this.stopped) {
      const last = page.items[page.items.length - 1] as Item;
      page = await this.storage.list(this.prefix, { atRevision: revision, startKey: `${last.key}\0`, limit: pageSize });
      items.push(...page.items);
    }
    return { items, revision };
  }

  private apply(event: StorageEvent): void {
    if (event.type === 'put' && event.item !== undefined) {
      if (!this.items.has(event.key)) this.keys.add(event.key);
      this.items.set(event.key, event.item);
    } else if (event.type === 'delete') {
      this.items.delete(event.key);
      this.keys.remove(event.key);
    }
    this.current = event.revision;
    this.changed = event.revision;
    const now = this.opts.now();
    this.ring.push({ event, at: now });
    this.evict(now);
    this.watchers.dispatch(event);
    this.releaseWaiters();
  }

  private evict(now: number): void {
    const horizon = now - this.opts.historyWindowMs;
    while (this.ringHead < this.ring.length) {
      const entry = this.ring[this.ringHead] as RingEntry;
      if (this.ring.length - this.ringHead <= this.opts.maxEvents && entry.at >= horizon) break;
      this.oldest = entry.event.revision;
      this.ringHead++;
    }
    if (this.ringHead > 1024 && this.ringHead * 2 > this.ring.length) {
      this.ring = this.ring.slice(this.ringHead);
      this.ringHead = 0;
    }
  }

  /** Index in the ring of the first event after `revision`. */
  private firstAfter(revision: number): number {
    let lo = this.ringHead;
    let hi = this.ring.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.ring[mid] as RingEntry).event.revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private caughtUp(): void {
    if (this.waiters.length > 0) this.catchUpProgress();
  }

  /** Advances the revision past writes elsewhere in the store once the watch is caught up. */
  private catchUpProgress(): void {
    const reached = this.progress?.progressRevision() ?? 0;
    if (reached > this.current) {
      this.current = reached;
      this.releaseWaiters();
    }
  }

  private releaseWaiters(): void {
    if (this.waiters.length === 0) return;
    const ready = this.waiters.filter((w) => w.revision <= this.current);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.revision > this.current);
    for (const w of ready) w.resolve();
  }

  /** Progress is pulled, not pushed: poll while anyone waits for a revision. */
  private pollProgress(): void {
    if (this.pollTimer !== undefined) return;
    this.pollTimer = setInterval(() => {
      this.catchUpProgress();
      if (this.waiters.length === 0 || this.stopped) {
        clearInterval(this.pollTimer);
        this.pollTimer = undefined;
      }
    }, progressPollMs);
  }
}

/** The items of a key-ordered list whose keys start with `prefix`. */
function itemsUnder(items: Item[], prefix: string): Item[] {
  const firstNotBefore = (key: string): number => {
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys((items[mid] as Item).key, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const end = prefixEnd(prefix);
  return items.slice(firstNotBefore(prefix), end === undefined ? items.length : firstNotBefore(end));
}

export function createCacher(storage: Storage, prefix: string, opts?: CacherOptions): WatchCache {
  return new WatchCache(storage, prefix, opts);
}
