// A watch as the client sees it, built from the watch cache's events: synthetic ADDED for
// the initial state, selector transitions (stops matching: DELETED with the last matching
// state; starts matching: ADDED), BOOKMARKs, the 410 ERROR event for a start revision that
// left the history window, and the end on timeout or abort.
import { internalError, resourceExpired, tooLargeResourceVersion } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import type { CacheCursor, Cacher, Item, StorageEvent } from '../storage/interface.js';
import { isTooLarge, isTooOld } from './errors.js';
import type { EventEncodings } from '../codec/encoding-memo.js';
import type { SharedWatchEvent, StoreWatch, StoreWatchEvent, WatchCursor } from '../rest/index.js';

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
class LazyWatchEvent implements StoreWatchEvent {
  private built: KubeObject | undefined;

  constructor(
    readonly type: 'ADDED' | 'MODIFIED' | 'DELETED',
    private readonly item: Item,
    private readonly revision: number,
    private readonly decoded: KubeObject | undefined,
    private readonly o: Pick<WatchStreamOptions, 'decode' | 'toExternal'>,
    readonly shared: SharedWatchEvent | undefined,
  ) {}

  get object(): KubeObject {
    return (this.built ??= this.o.toExternal(this.decoded ?? this.o.decode(this.item), this.revision));
  }

  set object(value: KubeObject) {
    this.built = value;
  }
}

/**
 * A BOOKMARK at `revision`: the same for every watcher of the served version, so it is framed
 * once for all of them (the cache marks them all at once); its object is built when read.
 */
class BookmarkEvent implements StoreWatchEvent {
  readonly type = 'BOOKMARK';
  private built: KubeObject | undefined;

  constructor(
    private readonly revision: number,
    private readonly o: Pick<WatchStreamOptions, 'bookmark'>,
    readonly shared: SharedWatchEvent | undefined,
  ) {}

  get object(): KubeObject {
    return (this.built ??= this.o.bookmark(this.revision));
  }

  set object(value: KubeObject) {
    this.built = value;
  }
}

function bookmarkEvent(revision: number, o: Pick<WatchStreamOptions, 'bookmark' | 'encodings'>): StoreWatchEvent {
  return new BookmarkEvent(revision, o, o.encodings?.describeBookmark(revision));
}

/** The event a watcher gets for one storage event, if any. */
export function translateEvent(ev: StorageEvent, o: Pick<WatchStreamOptions, 'decode' | 'toExternal' | 'filter' | 'encodings' | 'selectable'>): StoreWatchEvent | undefined {
  if (!o.filter) {
    // Without a selector nothing needs decoding to know what the watcher gets.
    if (ev.type === 'delete') return ev.prev ? answer('DELETED', ev.prev, ev.revision, undefined, o) : undefined;
    if (!ev.item) return undefined;
    return answer(ev.prev ? 'MODIFIED' : 'ADDED', ev.item, ev.item.modRevision, undefined, o);
  }
  const a = answerOf(ev, o);
  return a === undefined ? undefined : answer(a.type, a.item, a.revision, a.decoded, o);
}

function answer(
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  item: Item,
  revision: number,
  decoded: KubeObject | undefined,
  o: Pick<WatchStreamOptions, 'decode' | 'toExternal' | 'encodings'>,
): StoreWatchEvent {
  return new LazyWatchEvent(type, item, revision, decoded, o, o.encodings?.describe(item, type, revision));
}

/**
 * The watch as a cursor (`rest/watch.ts`: events taken synchronously, a callback when more
 * come) and, for consumers that iterate, as an async iterable over the same cursor.
 */
export function watchStream(o: WatchStreamOptions): StoreWatch {
  return {
    cursor: () => new StoreWatchCursor(o),
    [Symbol.asyncIterator]: () => iterate(new StoreWatchCursor(o)),
  };
}

/** The cursor's events as an async iterator: a promise only when the watcher has to wait. */
function iterate(cursor: WatchCursor): AsyncIterator<StoreWatchEvent> {
  const next = async (): Promise<IteratorResult<StoreWatchEvent>> => {
    for (;;) {
      const event = cursor.poll();
      if (event !== undefined) return { done: false, value: event };
      if (cursor.done) return { done: true, value: undefined };
      await new Promise<void>((resolve) => cursor.wait(resolve));
    }
  };
  return {
    next,
    return: async () => {
      cursor.close();
      return { done: true, value: undefined };
    },
  };
}

/** Where a watch is: the initial state, waiting for the cache's watch, its events, the last event. */
type Phase = 'initial' | 'opening' | 'live' | 'closing' | 'done';

/**
 * A watch as the client sees it, as a state machine polled by its consumer: the initial state
 * as ADDED (each object built as it is taken), then the cache's events translated (selector
 * transitions, bookmarks), a BOOKMARK before the timeout and at the end when asked for, and
 * the ERROR event for a start revision the cache no longer has. The cache's watch is opened
 * once the initial state has been taken, so that a long initial state waits in the ring, not
 * in the watcher's buffer.
 */
class StoreWatchCursor implements WatchCursor {
  private phase: Phase = 'initial';
  private next = 0;
  private events: CacheCursor | undefined;
  private last: number;
  private timedOut = false;
  private preTimeoutDue = false;
  private preTimeoutSent = false;
  /** The event `poll` answers before any other (the end's bookmark or ERROR). */
  private final: StoreWatchEvent | undefined;
  private wake: (() => void) | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly preTimer: NodeJS.Timeout | undefined;
  private readonly onAbort = (): void => this.finish(false);
  private readonly onEvent = (): void => this.notify();

  constructor(private readonly o: WatchStreamOptions) {
    this.last = o.start;
    if (o.signal.aborted) {
      this.phase = 'done';
      return;
    }
    o.signal.addEventListener('abort', this.onAbort, { once: true });
    const seconds = o.timeoutSeconds;
    if (seconds !== undefined && seconds > 0) {
      this.timer = setTimeout(() => {
        this.timedOut = true;
        this.finish(true);
      }, seconds * 1000);
      // Kubernetes gives a watch that asked for bookmarks one 2 seconds before its timeout, so the client can resume.
      if (o.bookmarks && seconds * 1000 > PRE_TIMEOUT_LEAD_MS) {
        this.preTimer = setTimeout(() => {
          this.preTimeoutDue = true;
          this.notify();
        }, seconds * 1000 - PRE_TIMEOUT_LEAD_MS);
      }
    }
    if (o.initial.length === 0) this.open();
  }

  get done(): boolean {
    return this.phase === 'done' && this.final === undefined;
  }

  poll(): StoreWatchEvent | undefined {
    const o = this.o;
    for (;;) {
      if (this.final !== undefined) {
        const ev = this.final;
        this.final = undefined;
        return ev;
      }
      switch (this.phase) {
        case 'initial': {
          if (this.next < o.initial.length) {
            const item = o.initial[this.next++]!;
            const obj = o.decode(item);
            if (o.filter && !o.filter(obj)) continue;
            return { type: 'ADDED', object: o.toExternal(obj, item.modRevision) };
          }
          this.open();
          continue;
        }
        case 'opening':
        case 'done':
          return undefined;
        case 'closing':
          this.end(this.o.bookmarks && (this.timedOut || !this.o.signal.aborted) ? bookmarkEvent(this.last, o) : undefined);
          continue;
        case 'live': {
          const events = this.events!;
          const ev = events.take();
          if (ev === undefined) {
            if (events.ended) {
              this.phase = 'closing';
              continue;
            }
            if (this.preTimeoutDue && !this.preTimeoutSent) {
              // Nothing is queued for this watcher, so every change up to the cache's
              // revision has been sent: the client may resume there.
              this.preTimeoutSent = true;
              this.last = Math.max(this.last, o.cacher.revision());
              return bookmarkEvent(this.last, o);
            }
            return undefined;
          }
          this.last = Math.max(this.last, ev.revision);
          if (ev.type === 'bookmark') {
            if (o.bookmarks) return bookmarkEvent(ev.revision, o);
            continue;
          }
          let out: StoreWatchEvent | undefined;
          try {
            out = translateEvent(ev, o);
          } catch (e) {
            this.end(o.signal.aborted ? undefined : { type: 'ERROR', object: statusObject(internalError(e).status) });
            continue;
          }
          if (out !== undefined) return out;
          continue;
        }
      }
    }
  }

  wait(wake: () => void): void {
    if (this.final !== undefined || this.phase === 'done' || this.phase === 'initial' || this.phase === 'closing') {
      wake();
      return;
    }
    if (this.phase === 'live' && (this.preTimeoutDue && !this.preTimeoutSent)) {
      wake();
      return;
    }
    this.wake = wake;
    if (this.phase === 'live') this.events!.wait(this.onEvent);
  }

  close(): void {
    this.finish(false);
    this.final = undefined;
  }

  /** Opens the cache's watch; its failure is the watch's ERROR event. */
  private open(): void {
    this.phase = 'opening';
    const o = this.o;
    o.cacher.cursor(o.prefix, o.start, { bookmarks: o.bookmarks }).then(
      (events) => {
        if (this.phase !== 'opening') {
          events.close();
          return;
        }
        this.events = events;
        this.phase = 'live';
        this.notify();
      },
      (e: unknown) => {
        if (this.phase !== 'opening') return;
        if (isTooOld(e)) this.end({ type: 'ERROR', object: statusObject(resourceExpired(`too old resource version: ${e.requested} (${e.oldest})`).status) });
        else if (isTooLarge(e)) this.end({ type: 'ERROR', object: statusObject(tooLargeResourceVersion(e.requested, e.current).status) });
        else this.end(o.signal.aborted ? undefined : { type: 'ERROR', object: statusObject(internalError(e).status) });
        this.notify();
      },
    );
  }

  /** Stops taking events: the timeout (`closing`: the end's bookmark follows), the client gone or closed. */
  private finish(closing: boolean): void {
    if (this.phase === 'done' || this.phase === 'closing') return;
    this.events?.close();
    if (closing) this.phase = 'closing';
    else this.end(undefined);
    this.notify();
  }

  /** The end: `final` is the last event, if any. */
  private end(final: StoreWatchEvent | undefined): void {
    this.phase = 'done';
    this.final = final;
    this.events?.close();
    clearTimeout(this.timer);
    clearTimeout(this.preTimer);
    this.o.signal.removeEventListener('abort', this.onAbort);
  }

  private notify(): void {
    const wake = this.wake;
    if (wake === undefined) return;
    this.wake = undefined;
    wake();
  }
}

/** How long before its timeout a watch that asked for bookmarks gets one. */
const PRE_TIMEOUT_LEAD_MS = 2000;
