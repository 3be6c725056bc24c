// The revisions of every object, in memory: per object (uid) its revisions in resourceVersion
// order, an index by (group, resource, namespace, name) that outlives the object, retention
// per object, and a cap on the bytes of all revisions with the oldest evicted first. A write
// costs one JSON encode and an append; the diff is computed when read.
import type { WriteRecord, WriteRecorder } from '../rest/index.js';
import { stringifyJson } from '../codec/json.js';
import { operationName, type RevisionOperation } from './operation.js';
import { revisionsToDrop, type Retention } from './retention.js';

/** The object a revision belongs to. */
export interface RevisionTarget {
  apiVersion: string;
  kind: string;
  group: string;
  resource: string;
  namespace: string;
  name: string;
  uid: string;
}

/** One stored revision. */
export interface StoredRevision {
  resourceVersion: number;
  timeMs: number;
  operation: RevisionOperation;
  subresource?: string;
  user: { username: string; groups: string[] };
  fieldManager?: string;
  /** The object's JSON text. */
  text: string;
  /** Set once dropped, so that the eviction queue skips it. */
  dropped?: true;
  /** The persisted batch that holds it, once written (see `persist.ts`). */
  batch?: { key: string; live: number };
}

/** Told of what the store keeps and drops (persistence). */
export interface HistoryListener {
  /** A revision recorded from a write (not one loaded). */
  added(target: RevisionTarget, revision: StoredRevision): void;
  /** A revision no longer kept. */
  dropped(revision: StoredRevision): void;
}

/** One object's revisions: `revisions[i]` is the object's revision number `first + i`. */
export interface ObjectHistory {
  readonly target: RevisionTarget;
  readonly revisions: StoredRevision[];
  first: number;
}

export interface HistoryStoreOptions {
  retention: Retention;
  /** The most bytes all revisions' objects may take together; the oldest go first beyond it. */
  maxBytes?: number;
  /** Milliseconds since the epoch. */
  now?: () => number;
}


/** 64 MiB of objects by default. */
export const DEFAULT_MAX_HISTORY_BYTES = 64 * 1024 * 1024;

/** A selection of objects by target fields; absent fields match anything. */
export interface TargetQuery {
  group: string;
  resource: string;
  /** `undefined`: every namespace (and cluster-scoped objects). */
  namespace?: string;
  name?: string;
  uid?: string;
}

function indexKey(group: string, resource: string, namespace: string, name: string): string {
  return `${group}\u0000${resource}\u0000${namespace}\u0000${name}`;
}

function revisionBytes(r: StoredRevision): number {
  // Two bytes per UTF-16 unit, as the text sits in memory, and a little for the rest.
  return r.text.length * 2 + 128;
}

export class HistoryStore implements WriteRecorder {
  private readonly byUid = new Map<string, ObjectHistory>();
  private readonly byName = new Map<string, Set<string>>();
  /** Every kept revision in arrival order, for the byte cap's oldest-first eviction; `head` is its front. */
  private queue: { history: ObjectHistory; revision: StoredRevision }[] = [];
  private head = 0;
  /** Entries of the queue behind `head` that were dropped by retention. */
  private stale = 0;
  private bytes = 0;
  private readonly retention: Retention;
  private readonly maxBytes: number;
  private readonly now: () => number;
  /** Persistence, when the history outlives the process. */
  listener?: HistoryListener;
  /** Watches of revisions, told of each new one. */
  private readonly watchers = new Set<(history: ObjectHistory, revision: StoredRevision) => void>();

  constructor(opts: HistoryStoreOptions) {
    this.retention = opts.retention;
    this.maxBytes = opts.maxBytes ?? DEFAULT_MAX_HISTORY_BYTES;
    this.now = opts.now ?? Date.now;
  }

  /** Keeps a write (the WriteRecorder contract): cheap, no diff, synchronous. */
  record(write: WriteRecord): void {
    const m = write.object.metadata;
    const uid = m?.uid;
    const rv = Number(m?.resourceVersion);
    if (!uid || !m?.name || !Number.isSafeInteger(rv) || rv <= 0) return;
    const revision: StoredRevision = {
      resourceVersion: rv,
      timeMs: this.now(),
      operation: operationName(write.verb, write.subresource),
      user: { username: write.user.username, groups: [...write.user.groups] },
      text: stringifyJson(write.object),
    };
    if (write.subresource) revision.subresource = write.subresource;
    if (write.fieldManager) revision.fieldManager = write.fieldManager;
    const target: RevisionTarget = {
      apiVersion: write.apiVersion,
      kind: write.kind,
      group: write.group,
      resource: write.resource,
      namespace: m.namespace ?? '',
      name: m.name,
      uid,
    };
    if (this.add(target, revision)) this.listener?.added(target, revision);
  }

  /** Adds a revision (also what a persisted history is loaded with); false when it was already there or is too old. */
  add(target: RevisionTarget, revision: StoredRevision): boolean {
    let history = this.byUid.get(target.uid);
    if (!history) {
      history = { target, revisions: [], first: 1 };
      this.byUid.set(target.uid, history);
      const key = indexKey(target.group, target.resource, target.namespace, target.name);
      let uids = this.byName.get(key);
      if (!uids) this.byName.set(key, (uids = new Set()));
      uids.add(target.uid);
    }
    const revs = history.revisions;
    // Writes of one object finish in resourceVersion order but may be reported out of it; a
    // write that changed nothing reports the revision it left standing.
    let at = revs.length;
    while (at > 0 && revs[at - 1]!.resourceVersion >= revision.resourceVersion) {
      if (revs[at - 1]!.resourceVersion === revision.resourceVersion) return false;
      at--;
    }
    if (at === 0 && revs.length > 0 && history.first > 1) return false; // older than what retention already dropped
    revs.splice(at, 0, revision);
    this.queue.push({ history, revision });
    this.bytes += revisionBytes(revision);
    this.applyRetention(history);
    this.evictOverCap();
    if (revision.dropped) return false;
    for (const w of this.watchers) w(history, revision);
    return true;
  }

  /** Calls `fn` with each revision added from now on; answers the function that stops it. */
  subscribe(fn: (history: ObjectHistory, revision: StoredRevision) => void): () => void {
    this.watchers.add(fn);
    return () => this.watchers.delete(fn);
  }

  /** Drops, everywhere, what retention no longer keeps (run now and then for objects no one writes). */
  prune(): void {
    for (const h of [...this.byUid.values()]) this.applyRetention(h);
    if (this.stale > 0) this.compactQueue();
  }

  /** The object with `uid`, if any of its revisions is kept. */
  byTargetUid(uid: string): ObjectHistory | undefined {
    const h = this.byUid.get(uid);
    if (!h) return undefined;
    this.applyRetention(h);
    return h.revisions.length > 0 ? h : undefined;
  }

  /** The objects a query selects, in no particular order. */
  select(q: TargetQuery): ObjectHistory[] {
    const out: ObjectHistory[] = [];
    const take = (h: ObjectHistory | undefined): void => {
      if (!h || h.target.group !== q.group || h.target.resource !== q.resource) return;
      if (q.namespace !== undefined && h.target.namespace !== q.namespace) return;
      if (q.name !== undefined && h.target.name !== q.name) return;
      if (q.uid !== undefined && h.target.uid !== q.uid) return;
      this.applyRetention(h);
      if (h.revisions.length > 0) out.push(h);
    };
    if (q.uid !== undefined) take(this.byUid.get(q.uid));
    else if (q.name !== undefined && q.namespace !== undefined) {
      for (const uid of this.byName.get(indexKey(q.group, q.resource, q.namespace, q.name)) ?? []) take(this.byUid.get(uid));
    } else for (const h of this.byUid.values()) take(h);
    return out;
  }

  /** Bytes held, as the cap counts them. */
  get size(): number {
    return this.bytes;
  }

  private applyRetention(h: ObjectHistory): void {
    // The common case, nothing to drop, without building the list of times.
    const revs = h.revisions;
    const { maxCount, maxAgeMs } = this.retention;
    const now = this.now();
    if (revs.length <= 1 || ((maxCount === undefined || revs.length <= maxCount) && (maxAgeMs === undefined || revs[0]!.timeMs >= now - maxAgeMs))) return;
    const drop = revisionsToDrop(
      h.revisions.map((r) => r.timeMs),
      this.retention,
      now,
    );
    if (drop > 0) this.dropFront(h, drop);
  }

  private dropFront(h: ObjectHistory, n: number): void {
    for (const r of h.revisions.splice(0, n)) {
      this.bytes -= revisionBytes(r);
      r.dropped = true;
      this.stale++;
      this.listener?.dropped(r);
    }
    h.first += n;
    if (h.revisions.length === 0) this.forget(h);
  }

  private forget(h: ObjectHistory): void {
    this.byUid.delete(h.target.uid);
    const key = indexKey(h.target.group, h.target.resource, h.target.namespace, h.target.name);
    const uids = this.byName.get(key);
    uids?.delete(h.target.uid);
    if (uids && uids.size === 0) this.byName.delete(key);
  }

  private evictOverCap(): void {
    while (this.bytes > this.maxBytes && this.head < this.queue.length) {
      const { history, revision } = this.queue[this.head++]!;
      if (revision.dropped) {
        this.stale--;
        continue;
      }
      // The queue is in arrival order, so what it holds first is its object's oldest kept revision.
      const i = history.revisions.indexOf(revision);
      if (i === 0) this.dropFront(history, 1);
      else if (i > 0) {
        history.revisions.splice(i, 1);
        this.bytes -= revisionBytes(revision);
        revision.dropped = true;
        this.stale++;
        this.listener?.dropped(revision);
      }
      if (i >= 0) this.stale--;
    }
    if (this.stale > 1024 && this.stale * 2 > this.queue.length - this.head) this.compactQueue();
  }

  /** Rebuilds the eviction queue from what is kept. */
  private compactQueue(): void {
    this.queue = this.queue.slice(this.head).filter(({ revision }) => !revision.dropped);
    this.head = 0;
    this.stale = 0;
  }
}
