// A watch as the client sees it, built from the watch cache's events: synthetic ADDED for
// the initial state, selector transitions (stops matching: DELETED with the last matching
// state; starts matching: ADDED), BOOKMARKs, the 410 ERROR event for a start revision that
// left the history window, and the end on timeout or abort.
import { internalError, resourceExpired, tooLargeResourceVersion } from '../apimachinery/errors.js';
import type { KubeObject, WatchEvent } from '../apimachinery/types.js';
import type { CacheEvent, Cacher, Item, StorageEvent } from '../storage/interface.js';
import { isTooLarge, isTooOld } from './errors.js';
import { abortController } from '../apimachinery/abort.js';
import type { EventEncodings } from '../codec/encoding-memo.js';
import type { SharedWatchEvent, StoreWatchEvent } from '../rest/index.js';

export interface WatchStreamOptions {
  cacher: Cacher;
  prefix: string;
  /** Events after this revision are sent. */
  start: number;
  /** Objects to announce as ADDED first (resourceVersion unset or `0`). */
  initial: Item[];
  signal: AbortSignal;
  timeoutSeconds?: number;
  bookmarks: boolean;
  decode(item: Item): KubeObject;
  toExternal(obj: KubeObject, revision: number): KubeObject;
  bookmark(revision: number): KubeObject;
  filter?: (obj: KubeObject) => boolean;
  /**
   * Where watchers of the same served version share each event's encodings; unset when
   * events are converted after this stream (their objects then differ from the item's answer).
   */
  encodings?: EventEncodings;
  /**
   * A stored item decoded for selector tests only, shared by the watchers that test it (so
   * read-only); without it each watcher decodes for itself.
   */
  selectable?(item: Item): KubeObject;
}

function statusObject(status: object): KubeObject {
  return status as KubeObject;
}

/** What a watcher is sent for one storage event: the event type and the item answered at a revision. */
interface Answer {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  item: Item;
  revision: number;
  /** The item decoded already (to test the selector). */
  decoded?: KubeObject;
}

function answerOf(ev: StorageEvent, o: Pick<WatchStreamOptions, 'decode' | 'filter' | 'selectable'>): Answer | undefined {
  if (!o.filter) {
    // Without a selector nothing needs decoding to know what the watcher gets.
    if (ev.type === 'delete') return ev.prev ? { type: 'DELETED', item: ev.prev, revision: ev.revision } : undefined;
    if (!ev.item) return undefined;
    return { type: ev.prev ? 'MODIFIED' : 'ADDED', item: ev.item, revision: ev.item.modRevision };
  }
  // Objects decoded for every watcher's selector are shared and read-only: the answer is then built anew.
  const view = o.selectable ?? o.decode;
  const own = (obj: KubeObject | undefined): KubeObject | undefined => (o.selectable ? undefined : obj);
  const prev = ev.prev ? view(ev.prev) : undefined;
  const prevMatched = prev !== undefined && o.filter(prev);
  if (ev.type === 'delete') return ev.prev && prevMatched ? { type: 'DELETED', item: ev.prev, revision: ev.revision, decoded: own(prev) } : undefined;
  if (!ev.item) return undefined;
  const current = view(ev.item);
  if (o.filter(current)) return { type: prevMatched ? 'MODIFIED' : 'ADDED', item: ev.item, revision: ev.item.modRevision, decoded: own(current) };
  return ev.prev && prevMatched ? { type: 'DELETED', item: ev.prev, revision: ev.revision, decoded: own(prev) } : undefined;
}

/**
 * An event whose object is built when it is first read: a watcher that sends the event's
 * shared bytes (`shared`) never builds it; one that reads it gets its own.
 */
function lazyEvent(type: WatchEvent['type'], build: () => KubeObject, shared: SharedWatchEvent | undefined): StoreWatchEvent {
  let object: KubeObject | undefined;
  const event: { type: WatchEvent['type']; object: KubeObject; shared?: SharedWatchEvent } = {
    type,
    get object(): KubeObject {
      return (object ??= build());
    },
    set object(value: KubeObject) {
      object = value;
    },
  };
  if (shared) event.shared = shared;
  return event;
}

/** The event a watcher gets for one storage event, if any. */
export function translateEvent(ev: StorageEvent, o: Pick<WatchStreamOptions, 'decode' | 'toExternal' | 'filter' | 'encodings' | 'selectable'>): StoreWatchEvent | undefined {
  const a = answerOf(ev, o);
  if (a === undefined) return undefined;
  const shared = o.encodings ? { source: a.item, revision: a.revision, encodings: o.encodings } : undefined;
  return lazyEvent(a.type, () => o.toExternal(a.decoded ?? o.decode(a.item), a.revision), shared);
}

export function watchStream(o: WatchStreamOptions): AsyncIterable<StoreWatchEvent> {
  return {
    [Symbol.asyncIterator]: () => run(o)[Symbol.asyncIterator](),
  };
}

async function* run(o: WatchStreamOptions): AsyncGenerator<StoreWatchEvent> {
  const controller = new AbortController();
  const abort = () => abortController(controller);
  if (o.signal.aborted) return;
  o.signal.addEventListener('abort', abort, { once: true });
  let timedOut = false;
  const timer =
    o.timeoutSeconds !== undefined && o.timeoutSeconds > 0
      ? setTimeout(() => {
          timedOut = true;
          abortController(controller);
        }, o.timeoutSeconds * 1000)
      : undefined;
  let last = o.start;
  const preTimeout = o.bookmarks ? preTimeoutMark(o.timeoutSeconds) : undefined;
  const events = o.cacher.watch(o.prefix, o.start, controller.signal, { bookmarks: o.bookmarks })[Symbol.asyncIterator]();
  try {
    for (const item of o.initial) {
      const obj = o.decode(item);
      if (o.filter && !o.filter(obj)) continue;
      yield { type: 'ADDED', object: o.toExternal(obj, item.modRevision) };
    }
    try {
      let pending: Promise<IteratorResult<CacheEvent>> | undefined;
      for (;;) {
        pending ??= events.next();
        const next = preTimeout && !preTimeout.fired ? await Promise.race([pending, preTimeout.due]) : await pending;
        if (next === PRE_TIMEOUT) {
          // Nothing is queued for this watcher (its next event is still awaited), so every
          // change up to the cache's revision has been sent: the client may resume there.
          last = Math.max(last, o.cacher.revision());
          yield { type: 'BOOKMARK', object: o.bookmark(last) };
          continue;
        }
        pending = undefined;
        if (next.done || controller.signal.aborted) break;
        const ev = next.value;
        if (ev.type === 'bookmark') {
          last = Math.max(last, ev.revision);
          if (o.bookmarks) yield { type: 'BOOKMARK', object: o.bookmark(ev.revision) };
          continue;
        }
        last = Math.max(last, ev.revision);
        const out = translateEvent(ev, o);
        if (out) yield out;
      }
    } catch (e) {
      if (isTooOld(e)) {
        yield { type: 'ERROR', object: statusObject(resourceExpired(`too old resource version: ${e.requested} (${e.oldest})`).status) };
        return;
      }
      if (isTooLarge(e)) {
        yield { type: 'ERROR', object: statusObject(tooLargeResourceVersion(e.requested, e.current).status) };
        return;
      }
      if (controller.signal.aborted) return;
      yield { type: 'ERROR', object: statusObject(internalError(e).status) };
      return;
    }
    // A last bookmark tells a client that ends its watch on our timeout where to resume.
    if (o.bookmarks && (timedOut || !o.signal.aborted)) yield { type: 'BOOKMARK', object: o.bookmark(last) };
  } finally {
    if (timer) clearTimeout(timer);
    preTimeout?.cancel();
    o.signal.removeEventListener('abort', abort);
    abortController(controller);
    void events.return?.(undefined).catch(() => undefined);
  }
}

const PRE_TIMEOUT = Symbol('pre-timeout bookmark');

/** Kubernetes gives a watch that asked for bookmarks one 2 seconds before its timeout, so the client can resume. */
const PRE_TIMEOUT_LEAD_MS = 2000;

interface PreTimeoutMark {
  due: Promise<typeof PRE_TIMEOUT>;
  fired: boolean;
  cancel(): void;
}

function preTimeoutMark(timeoutSeconds: number | undefined): PreTimeoutMark | undefined {
  if (timeoutSeconds === undefined || timeoutSeconds * 1000 <= PRE_TIMEOUT_LEAD_MS) return undefined;
  let handle: NodeJS.Timeout | undefined;
  const mark: PreTimeoutMark = {
    fired: false,
    due: new Promise((resolve) => {
      handle = setTimeout(() => {
        mark.fired = true;
        resolve(PRE_TIMEOUT);
      }, timeoutSeconds * 1000 - PRE_TIMEOUT_LEAD_MS);
    }),
    cancel: () => clearTimeout(handle),
  };
  return mark;
}
