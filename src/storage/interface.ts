// The revisioned key-value store every API object lives in, in etcd v3's model: one global
// revision incremented by every successful write; each key keeps the revision that created
// it and the one that last modified it. Keys and values are opaque at this layer.

export interface Item {
  key: string;
  value: Uint8Array;
  createRevision: number;
  modRevision: number;
}

export type StorageEventType = 'put' | 'delete';

export interface StorageEvent {
  type: StorageEventType;
  key: string;
  /** The revision of this event (the new modRevision, or the deletion's revision). */
  revision: number;
  /** Present for `put`: the item after the write. */
  item?: Item;
  /** The previous item: on `delete` always, on `put` when the key existed before. */
  prev?: Item;
}

export interface ListOptions {
  /** Read the snapshot at exactly this revision (Compacted if older than retained history). */
  atRevision?: number;
  /** First key to return (inclusive), for paging. */
  startKey?: string;
  limit?: number;
}

export interface ListResult {
  items: Item[];
  /** The revision the list was read at. */
  revision: number;
  more: boolean;
  /** Items after this page under the prefix, at the same revision. */
  remaining: number;
}

export interface Storage {
  revision(): Promise<number>;
  /**
   * True when `revision()` is answered in process, without a round trip: a consistent read
   * from the watch cache (wait until it has that revision) is then cheaper than a read of
   * storage.
   */
  readonly localRevision?: boolean;
  get(key: string, opts?: { atRevision?: number }): Promise<{ item?: Item; revision: number }>;
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /** Fails with KeyExistsError when the key is present. */
  create(key: string, value: Uint8Array): Promise<Item>;
  /** Fails with NotFoundError, or ConflictError when `ifModRevision` does not match. */
  update(key: string, value: Uint8Array, ifModRevision?: number): Promise<Item>;
  /** Returns the deleted item. Fails with NotFoundError or ConflictError. */
  delete(key: string, ifModRevision?: number): Promise<Item>;
  /**
   * Every event under `prefix` after `afterRevision`, in revision order, exactly once. Fails
   * (on iteration) with CompactedError when `afterRevision` is older than retained history.
   * Ends when `signal` aborts.
   */
  watch(prefix: string, afterRevision: number, signal: AbortSignal): AsyncIterable<StorageEvent>;
  /** Forgets superseded history up to `revision`. */
  compact(revision: number): Promise<void>;
  close(): Promise<void>;
}

export class StorageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class KeyExistsError extends StorageError {
  constructor(readonly key: string) {
    super(`key exists: ${key}`);
  }
}

export class NotFoundError extends StorageError {
  constructor(readonly key: string) {
    super(`key not found: ${key}`);
  }
}

export class ConflictError extends StorageError {
  constructor(
    readonly key: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`conflict on ${key}: expected mod revision ${expected}, found ${actual}`);
  }
}

export class CompactedError extends StorageError {
  constructor(
    readonly requested: number,
    readonly compacted: number,
  ) {
    super(`revision ${requested} has been compacted (compacted up to ${compacted})`);
  }
}

/** An event delivered by the watch cache: a store event, or a progress mark for BOOKMARKs. */
export type CacheEvent = StorageEvent | { type: 'bookmark'; revision: number };

/**
 * One watcher's events, taken synchronously: `take` answers the next queued event, or
 * undefined when none is queued (then `ended` says whether more can come). `wait` calls its
 * callback once, when an event is queued or the watch ended (at once when that is already so).
 * A watcher that falls a full buffer of live events behind is ended; its consumer ends the
 * client's watch and the client re-watches.
 */
export interface CacheCursor {
  take(): CacheEvent | undefined;
  /** Whether an event is queued. */
  pending(): boolean;
  readonly ended: boolean;
  wait(wake: () => void): void;
  /** Ends the watch and drops what is queued. */
  close(): void;
}

export interface CacheListResult {
  items: Item[];
  /** The cache's revision when the list was taken. */
  revision: number;
  more: boolean;
  remaining: number;
}

export interface CacheWatchOptions {
  /** Deliver a `bookmark` event now and then (at least once a minute) and when asked. */
  bookmarks?: boolean;
}

/**
 * The watch cache of one key prefix (one resource): an initial list, then the store's
 * watch, kept in memory as the current items in key order and a ring of recent events.
 */
export interface Cacher {
  /** Resolves when the initial list is loaded. */
  ready(): Promise<void>;
  /** The newest revision the cache has applied. */
  revision(): number;
  /**
   * Whether the cache's items are the store's under its prefix at `revision`: nothing under
   * the prefix changed between `revision` and the cache's revision (writes elsewhere in the
   * store move the revision on without changing the items).
   */
  holdsRevision(revision: number): boolean;
  /**
   * Resolves once the cache has applied `revision`; fails with TooLargeResourceVersionError
   * after `timeoutMs`.
   */
  waitForRevision(revision: number, timeoutMs?: number): Promise<void>;
  /** Asks the store for its current revision and waits until the cache has it (consistent read). */
  waitForFresh(timeoutMs?: number): Promise<number>;
  get(key: string): Item | undefined;
  /** Current items under `prefix` (defaults to the cache's own prefix) from memory, in key order. */
  list(opts?: { prefix?: string; startKey?: string; limit?: number }): CacheListResult;
  /**
   * Events under `prefix` after `afterRevision`. Fails (on iteration) with
   * TooOldResourceVersionError when the revision left the history window. A watcher that
   * cannot keep up has its iteration ended; the client re-watches.
   */
  watch(prefix: string, afterRevision: number, signal: AbortSignal, opts?: CacheWatchOptions): AsyncIterable<CacheEvent>;
  /**
   * The watch of `watch` as a cursor, registered when this resolves. Fails with
   * TooOldResourceVersionError when the revision left the history window.
   */
  cursor(prefix: string, afterRevision: number, opts?: CacheWatchOptions): Promise<CacheCursor>;
  stop(): Promise<void>;
}

export class TooOldResourceVersionError extends StorageError {
  constructor(
    readonly requested: number,
    readonly oldest: number,
  ) {
    super(`too old resource version: ${requested} (${oldest})`);
  }
}

export class TooLargeResourceVersionError extends StorageError {
  constructor(
    readonly requested: number,
    readonly current: number,
  ) {
    super(`Too large resource version: ${requested}, current: ${current}`);
  }
}
