// The read side of a stored kind: one object that decides per request whether a read is
// answered from the resource's watch cache or from storage (Kubernetes' CacheDelegator),
// and that applies the resource-version rules of get, list and watch, paging with continue
// tokens, remainingItemCount and the label and field filter during the scan. The Store owns
// writes and calls only this for what it reads.
import { badRequest, internalError, isApiError, tooLargeResourceVersion } from '../apimachinery/errors.js';
import type { KubeList, KubeObject, WatchEvent } from '../apimachinery/types.js';
import { EventEncodings, RecentEventMemo } from '../codec/encoding-memo.js';
import type { LazyItems, StoredSplice, StoreWatch } from '../rest/index.js';
import { withLazyItems } from './list.js';
import type { Cacher, Item, Storage } from '../storage/interface.js';
import type { ListOptions } from '../rest/index.js';
import { LATEST_REVISION, decodeContinue, encodeContinue } from './continue.js';
import { expiredContinue, expiredList, isCompacted, isTooLarge, parseResourceVersion } from './errors.js';
import { watchStream } from './watch.js';

const DEFAULT_WAIT_MS = 3000;
/** How many bytes of decoded objects the watchers' selectors share (see `selectables`). */
const SELECTABLES_BUDGET = 16 * 1024 * 1024;

/** Decides whether an object keeps living or passes a label and field selector. */
export type ObjectFilter = ((obj: KubeObject) => boolean) & {
  /**
   * A test of the storage key alone that every object the filter passes also passes (a
   * `metadata.name=` selector: the key ends in the name), so that the items whose keys fail
   * it are skipped without being decoded.
   */
  readonly keyMayMatch?: (key: string) => boolean;
};

/** The items of `items` whose keys may hold an object `filter` passes. */
function keysMayMatch(items: Item[], filter: ObjectFilter | undefined): Item[] {
  const test = filter?.keyMayMatch;
  return test ? items.filter((item) => test(item.key)) : items;
}

/** How the Store wants stored items answered: decoding and conversion to the served version. */
export interface ReadView {
  /** A stored item as an object in the storage version, with its resource version. */
  decode(item: Item): KubeObject;
  /** A decoded object as answered, at `revision`. */
  toExternal(obj: KubeObject, revision: number): KubeObject;
  /** The object of a BOOKMARK event at `revision`. */
  bookmark(revision: number): KubeObject;
  /**
   * Present when answering waits for a conversion (a conversion webhook): `toExternal` then
   * leaves objects in the storage version, and this converts a batch of them in one call.
   * Without it nothing on the read paths awaits per object.
   */
  convert?(objs: KubeObject[]): Promise<KubeObject[]>;
}

export interface CacheDelegatorOptions {
  storage: Storage;
  /** The watch cache of the resource's storage prefix. */
  cacher: Cacher;
  view: ReadView;
  /** Where the resource's keys start; continue tokens hold keys relative to it. */
  resourcePrefix: string;
  /** Names the kind in a 422 for a malformed resource version of a get or list. */
  groupKind: { group: string; kind: string };
  /** Names the resource in a 422 for a malformed resource version of a watch. */
  qualified: { group: string; resource: string };
  /** How long reads wait for the cache to reach a requested resource version (ms); 3 s when unset. */
  waitTimeoutMs?: number;
}

/** The resource-version and paging parameters of a list. */
export type ListRequest = Pick<ListOptions, 'resourceVersion' | 'resourceVersionMatch' | 'limit' | 'continue'>;

/** The parameters of a watch start. */
export interface WatchRequest {
  resourceVersion?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  signal: AbortSignal;
}

/**
 * A list answer without its type: the Store names the list kind. With `lazy` the items are
 * produced on demand from a cache snapshot, and `items` builds them when first read (see
 * StoreList.lazy).
 */
export type ListPage = Pick<KubeList, 'metadata' | 'items'> & { readonly lazy?: LazyItems };

/**
 * Where a list is answered from: `continue` (storage, at the token's revision), `exact`
 * (storage, at the requested revision: resourceVersionMatch=Exact, or a limit with a
 * version and no match, which Kubernetes reads as exact), else `cache`.
 */
export function listSource(opts: ListRequest): 'continue' | 'exact' | 'cache' {
  if (opts.continue) return 'continue';
  const rv = opts.resourceVersion ?? '';
  const match = opts.resourceVersionMatch;
  if (match === 'Exact' || (match === undefined && pageLimit(opts) > 0 && rv !== '' && rv !== '0')) return 'exact';
  return 'cache';
}

function pageLimit(opts: ListRequest): number {
  return opts.limit !== undefined && opts.limit > 0 ? Math.floor(opts.limit) : 0;
}

export class CacheDelegator {
  private readonly storage: Storage;
  private readonly cacher: Cacher;
  private readonly view: ReadView;
  private readonly resourcePrefix: string;
  private readonly groupKind: { group: string; kind: string };
  private readonly qualified: { group: string; resource: string };
  private readonly waitTimeoutMs: number;
  /**
   * Per cached item, whether its stored bytes are its answer but for the resource version
   * (and where that goes), learnt the first time a list encodes it: later lists copy the
   * bytes. Per delegator, since each served version answers the same item differently; it
   * goes away with the item.
   */
  private readonly splices = new WeakMap<object, StoredSplice>();
  /** Each recent event's encodings, shared by the watchers of this served version. */
  private readonly encodings = new EventEncodings();
  /** Each recent event's objects decoded for the selectors of this resource's watchers (weighed at a few times their stored size). */
  private readonly selectables = new RecentEventMemo<KubeObject>(SELECTABLES_BUDGET, (_, item) => (item as Item).value.byteLength * 4);

  constructor(opts: CacheDelegatorOptions) {
    this.storage = opts.storage;
    this.cacher = opts.cacher;
    this.view = opts.view;
    this.resourcePrefix = opts.resourcePrefix;
    this.groupKind = opts.groupKind;
    this.qualified = opts.qualified;
    this.waitTimeoutMs = opts.waitTimeoutMs ?? DEFAULT_WAIT_MS;
  }

  // -------------------------------------------------------------------------------------
  // Get

  /**
   * The stored item under `key` by get's resourceVersion rules: unset = the most recent
   * (also what writes build on), `0` = any (the cache), N = not older than N (the cache,
   * once it has N). `name` names the object in a 422. The most recent is a consistent read
   * of the cache (once it has the store's revision, it holds every acknowledged write) where
   * the store knows its revision in process; else, on etcd, where learning the revision is a
   * round trip and the cache then waits for the watch's progress, it is read from storage.
   */
  async get(key: string, resourceVersion = '', name = ''): Promise<Item | undefined> {
    return (await this.read(key, resourceVersion, name)).item;
  }

  /** `get`, saying whether the watch cache answered (its items are one object per stored revision). */
  async read(key: string, resourceVersion = '', name = ''): Promise<{ item: Item | undefined; cached: boolean }> {
    if (resourceVersion === '') {
      if (!this.storage.localRevision) return { item: (await this.storage.get(key)).item, cached: false };
      await this.cacher.ready();
      try {
        await this.cacher.waitForFresh(this.waitTimeoutMs);
      } catch (e) {
        // A cache that cannot catch up in time (a flood of writes): storage answers, as it
        // always may; a GET does not fail for the cache's sake.
        if (isTooLarge(e)) return { item: (await this.storage.get(key)).item, cached: false };
        throw e;
      }
      return { item: this.cacher.get(key), cached: true };
    }
    const revision = parseResourceVersion(resourceVersion, this.groupKind, name);
    await this.cacher.ready();
    if (revision > 0) await this.waitForRevision(revision);
    return { item: this.cacher.get(key), cached: true };
  }

  // -------------------------------------------------------------------------------------
  // List

  /** The objects under `prefix` that pass `filter`, by list's resourceVersion and paging rules. */
  async list(prefix: string, opts: ListRequest, filter?: ObjectFilter): Promise<ListPage> {
    const page = await this.listPage(prefix, opts, filter);
    // One conversion call for the whole page.
    if (this.view.convert && page.items.length > 0) page.items = await this.view.convert(page.items);
    return page;
  }

  private async listPage(prefix: string, opts: ListRequest, filter?: ObjectFilter): Promise<ListPage> {
    const limit = pageLimit(opts);
    const rv = opts.resourceVersion ?? '';
    switch (listSource(opts)) {
      case 'continue': {
        if (rv !== '' && rv !== '0') throw badRequest('specifying resource version is not allowed when using continue');
        const token = decodeContinue(opts.continue ?? '');
        const startKey = this.resourcePrefix + token.start;
        const revision = token.revision === LATEST_REVISION ? await this.waitForFresh() : token.revision;
        // A cache whose items have not changed since the token's revision holds exactly the
        // snapshot the pages read: the next page comes from it (the usual case of a list paged
        // through while nothing of its resource is written, whatever else is), else from
        // storage at that revision.
        if (this.cacher.holdsRevision(revision)) return this.pageFromCache(prefix, revision, startKey, limit, filter);
        return this.listFromStorage(prefix, revision, startKey, limit, filter, true);
      }
      case 'exact': {
        const revision = parseResourceVersion(rv, this.groupKind, '');
        await this.cacher.ready();
        await this.waitForRevision(revision);
        return this.listFromStorage(prefix, revision, prefix, limit, filter, false);
      }
      case 'cache': {
        await this.cacher.ready();
        if (rv === '') await this.waitForFresh();
        else {
          const revision = parseResourceVersion(rv, this.groupKind, '');
          if (revision > 0) await this.waitForRevision(revision);
        }
        // `resourceVersion=0` is answered whole from the watch cache, as Kubernetes 1.27's
        // cache does: it does not page, so the limit is not applied.
        return this.pageFromCache(prefix, this.cacher.revision(), undefined, rv === '0' ? 0 : limit, filter);
      }
    }
  }

  /**
   * A page from the watch cache, which stands at `revision`. Without a selector only the page
   * is taken from the cache, and its items are built on demand.
   */
  private pageFromCache(prefix: string, revision: number, startKey: string | undefined, limit: number, filter: ObjectFilter | undefined): ListPage {
    if (filter) {
      const snapshot = this.cacher.list({ prefix, startKey });
      return this.pageFromSnapshot(keysMayMatch(snapshot.items, filter), snapshot.revision, limit, filter);
    }
    const { items, remaining } = this.cacher.list({ prefix, startKey, limit: limit > 0 ? limit : undefined });
    const last = items[items.length - 1];
    const cont = remaining > 0 && last !== undefined ? this.nextToken(revision, last.key) : '';
    if (!this.view.convert) return withLazyItems({ metadata: this.page([], revision, cont, remaining).metadata }, this.lazySnapshot(items));
    return this.page(
      items.map((item) => this.view.toExternal(this.view.decode(item), item.modRevision)),
      revision,
      cont,
      remaining,
    );
  }

  private page(items: KubeObject[], revision: number, cont: string, remaining: number | undefined): ListPage {
    const metadata: KubeList['metadata'] = { resourceVersion: String(revision) };
    if (cont) metadata.continue = cont;
    if (cont && remaining !== undefined && remaining > 0) metadata.remainingItemCount = remaining;
    return { metadata, items };
  }

  private nextToken(revision: number, lastKey: string): string {
    // The next page starts right after the last returned key.
    return encodeContinue({ revision, start: `${lastKey.slice(this.resourcePrefix.length)}\u0000` });
  }

  /**
   * The whole snapshot, each object decoded and converted when the answer pulls it. The
   * snapshot's items are immutable, so the answer is the snapshot's however long it takes.
   */
  private lazySnapshot(items: Item[]): LazyItems {
    const view = this.view;
    return {
      count: items.length,
      at: (i) => view.toExternal(view.decode(items[i]), items[i].modRevision),
      stored: (i) => ({ item: items[i], bytes: items[i].value, resourceVersion: String(items[i].modRevision) }),
      splices: this.splices,
    };
  }

  private pageFromSnapshot(items: Item[], revision: number, limit: number, filter: ObjectFilter | undefined): ListPage {
    const out: KubeObject[] = [];
    let lastKey = '';
    let i = 0;
    for (; i < items.length; i++) {
      if (limit > 0 && out.length === limit) break;
      const obj = this.view.decode(items[i]);
      if (filter && !filter(obj)) continue;
      out.push(this.view.toExternal(obj, items[i].modRevision));
      lastKey = items[i].key;
    }
    let more = false;
    if (limit > 0 && out.length === limit && i < items.length) {
      // With a selector, only a further match makes another page.
      more = filter ? items.slice(i).some((it) => filter(this.view.decode(it))) : true;
    }
    const cont = more ? this.nextToken(revision, lastKey) : '';
    return this.page(out, revision, cont, filter ? undefined : items.length - i);
  }

  private async listFromStorage(
    prefix: string,
    revision: number,
    startKey: string,
    limit: number,
    filter: ObjectFilter | undefined,
    continuing: boolean,
  ): Promise<ListPage> {
    const out: KubeObject[] = [];
    let key = startKey;
    let lastKey = '';
    let more = false;
    let remaining = 0;
    for (;;) {
      let page;
      try {
        page = await this.storage.list(prefix, { atRevision: revision, startKey: key, limit: limit > 0 ? limit : undefined });
      } catch (e) {
        if (isCompacted(e)) throw continuing ? expiredContinue(key.slice(this.resourcePrefix.length)) : expiredList();
        throw e;
      }
      let full = false;
      for (let i = 0; i < page.items.length; i++) {
        const item = page.items[i];
        if (filter?.keyMayMatch && !filter.keyMayMatch(item.key)) continue;
        const obj = this.view.decode(item);
        if (filter && !filter(obj)) continue;
        out.push(this.view.toExternal(obj, item.modRevision));
        lastKey = item.key;
        if (limit > 0 && out.length === limit) {
          full = true;
          const after = page.items.length - 1 - i;
          more = after > 0 || page.more;
          remaining = after + page.remaining;
          break;
        }
      }
      if (full || !page.more || page.items.length === 0) break;
      key = `${page.items[page.items.length - 1].key}\u0000`;
    }
    const cont = more ? this.nextToken(revision, lastKey) : '';
    return this.page(out, revision, cont, filter ? undefined : remaining);
  }

  // -------------------------------------------------------------------------------------
  // Watch

  /**
   * A watch of `prefix` from the cache: unset = the current state (consistent) as ADDED
   * events, then changes; `0` = the cache's state as it is; N = changes after N.
   */
  async watch(prefix: string, opts: WatchRequest, filter?: ObjectFilter): Promise<StoreWatch> {
    const rv = opts.resourceVersion ?? '';
    await this.cacher.ready();
    let start: number;
    let initial: Item[] = [];
    if (rv === '' || rv === '0') {
      if (rv === '') await this.waitForFresh();
      const snapshot = this.cacher.list({ prefix });
      start = snapshot.revision;
      initial = keysMayMatch(snapshot.items, filter);
    } else {
      start = parseResourceVersion(rv, { group: this.qualified.group, kind: this.qualified.resource }, '');
    }
    const convert = this.view.convert?.bind(this.view);
    const stream = watchStream({
      cacher: this.cacher,
      prefix,
      start,
      // With a waiting conversion the initial state is converted here, in one call.
      initial: convert ? [] : initial,
      signal: opts.signal,
      timeoutSeconds: opts.timeoutSeconds,
      bookmarks: opts.allowWatchBookmarks === true,
      decode: (item) => this.view.decode(item),
      toExternal: (obj, rev) => this.view.toExternal(obj, rev),
      bookmark: (rev) => this.view.bookmark(rev),
      filter,
      encodings: convert ? undefined : this.encodings,
      selectable: filter ? (item) => this.selectables.get(item, '', () => this.view.decode(item)) : undefined,
    });
    if (!convert) return stream;
    const added: KubeObject[] = [];
    for (const item of initial) {
      const obj = this.view.decode(item);
      if (!filter || filter(obj)) added.push(this.view.toExternal(obj, item.modRevision));
    }
    return { [Symbol.asyncIterator]: () => convertedEvents(added, stream, convert) };
  }

  // -------------------------------------------------------------------------------------
  // Waiting for the cache

  private async waitForRevision(revision: number): Promise<void> {
    try {
      await this.cacher.waitForRevision(revision, this.waitTimeoutMs);
    } catch (e) {
      if (isTooLarge(e)) throw tooLargeResourceVersion(revision, e.current);
      throw e;
    }
  }

  private async waitForFresh(): Promise<number> {
    try {
      return await this.cacher.waitForFresh(this.waitTimeoutMs);
    } catch (e) {
      if (isTooLarge(e)) throw tooLargeResourceVersion(e.requested, e.current);
      throw e;
    }
  }
}

/** The ERROR event that ends a watch whose conversion failed, carrying the failure's Status. */
function errorEvent(e: unknown): WatchEvent {
  return { type: 'ERROR', object: (isApiError(e) ? e.status : internalError(e).status) as unknown as KubeObject };
}

/**
 * A watch whose objects wait for a conversion: the initial state in one call, then each
 * event as it comes, as Kubernetes converts them. A failed conversion ends the watch with
 * an ERROR event.
 */
async function* convertedEvents(
  initial: KubeObject[],
  events: AsyncIterable<WatchEvent>,
  convert: (objs: KubeObject[]) => Promise<KubeObject[]>,
): AsyncGenerator<WatchEvent> {
  if (initial.length > 0) {
    let converted: KubeObject[];
    try {
      converted = await convert(initial);
    } catch (e) {
      yield errorEvent(e);
      return;
    }
    for (const object of converted) yield { type: 'ADDED', object };
  }
  for await (const ev of events) {
    if (ev.type === 'BOOKMARK' || ev.type === 'ERROR') {
      yield ev;
      continue;
    }
    let object: KubeObject;
    try {
      [object] = await convert([ev.object]);
    } catch (e) {
      yield errorEvent(e);
      return;
    }
    yield { type: ev.type, object };
  }
}
