// Writing watch events to clients. A change reaches every watcher of a resource at once;
// what each watcher then costs is the write of bytes encoded once for all of them. So a
// watcher is not a chain of promises per event: its stream is a pump that takes the events
// ready for it from a cursor (`rest/watch.ts`) and writes them, and that is woken by a
// callback when more come. The pumps woken in one turn of the event loop run together in
// the next (setImmediate), so every stream of an HTTP/2 session gets its frames in one batch,
// the writer's own answer leaves first, and a watcher's events that arrived together go out
// as one write; a large fan-out runs in slices with the sockets read between them. A client that does not read stops its pump (the response reports a full
// buffer) until it drains; meanwhile its events wait in the watch cache's bounded buffer,
// which ends the watch when full, as before.
import type { StoreWatch, StoreWatchEvent, WatchCursor } from '../../rest/index.js';
import type { ServerResponse } from '../http.js';

/** What a pump needs of Node's responses beyond ServerResponse (both HTTP versions have it). */
export type WatchResponse = ServerResponse & {
  cork(): void;
  uncork(): void;
  once(event: 'drain', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
};

/** Events of one pump gathered into one (corked) write up to about this many bytes. */
const WRITE_BYTES = 64 * 1024;

export interface WatchPumpOptions {
  cursor: WatchCursor;
  res: WatchResponse;
  /** Aborts when the watch ends from outside (client gone, timeout, shutdown). */
  signal: AbortSignal;
  /** The bytes of one event in the negotiated encoding. */
  frame(event: StoreWatchEvent): Uint8Array;
  /** The ERROR event that reports a failure after the first byte. */
  errorFrame(err: unknown): Uint8Array;
  /** Called once, when the events that were ready at the start have been written. */
  initialized?: () => void;
  /** Called once the response has ended. */
  done(): void;
}

/** One watch's stream: events from its cursor to its response, as the client takes them. */
export class WatchPump {
  private finished = false;
  /** Frames taken and not yet written, and their bytes. */
  private readonly chunks: Uint8Array[] = [];
  private size = 0;
  private draining = false;
  private initialized: (() => void) | undefined;
  /** Counts the waits, so that a check after one knows whether it was woken since. */
  private waits = 0;
  private woken = 0;
  private readonly wake = (): void => {
    this.woken = this.waits;
    schedule(this);
  };
  private readonly onDrain = (): void => {
    this.draining = false;
    schedule(this);
  };
  private readonly onAbort = (): void => this.finish();

  constructor(private readonly o: WatchPumpOptions) {
    this.initialized = o.initialized;
  }

  start(): void {
    if (this.o.signal.aborted) {
      this.finish();
      return;
    }
    this.o.signal.addEventListener('abort', this.onAbort, { once: true });
    this.pump();
  }

  /** Writes what is ready, until the client's buffer is full; then waits for more or for the drain. */
  pump(): void {
    if (this.finished || this.draining) return;
    const { cursor, res } = this.o;
    try {
      for (;;) {
        const event = cursor.poll();
        if (event === undefined) break;
        const bytes = this.o.frame(event);
        this.chunks.push(bytes);
        this.size += bytes.byteLength;
        if (this.size >= WRITE_BYTES && !this.flush()) {
          this.waitForDrain();
          return;
        }
      }
    } catch (err) {
      this.flush();
      // A failure after the first byte is reported to the client as an ERROR event.
      if (!this.o.signal.aborted && !res.writableEnded) res.write(this.o.errorFrame(err));
      this.finish();
      return;
    }
    const room = this.flush();
    if (cursor.done) {
      this.finish();
      return;
    }
    if (!room) {
      this.waitForDrain();
      return;
    }
    this.waits++;
    if (this.initialized !== undefined) {
      // The events ready at once have been written when the pump waits and nothing comes
      // before the next turn of the event loop.
      const wait = this.waits;
      setImmediate(() => {
        if (this.woken !== wait && this.initialized !== undefined) {
          this.initialized();
          this.initialized = undefined;
        }
      });
    }
    cursor.wait(this.wake);
  }

  /** Writes the frames gathered; answers whether the response has room for more. */
  private flush(): boolean {
    const chunks = this.chunks;
    if (chunks.length === 0) return true;
    const res = this.o.res;
    let room = true;
    if (chunks.length === 1) room = res.write(chunks[0]!);
    else {
      // Corked, the frames go down as one write of several buffers: none is copied.
      res.cork();
      for (const chunk of chunks) room = res.write(chunk);
      res.uncork();
    }
    chunks.length = 0;
    this.size = 0;
    return room;
  }

  private waitForDrain(): void {
    this.draining = true;
    this.o.res.once('drain', this.onDrain);
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    const { res, cursor } = this.o;
    this.o.signal.removeEventListener('abort', this.onAbort);
    res.off('drain', this.onDrain);
    cursor.close();
    this.initialized?.();
    this.initialized = undefined;
    if (!res.writableEnded) res.end();
    this.o.done();
  }
}

// Pumps woken since the last run, run together once per turn of the event loop, at most
// PUMPS_PER_TURN in one: between slices the server reads its sockets, so that the next
// write's request is under way while a change still fans out to thousands of watchers.
const PUMPS_PER_TURN = 256;
const ready = new Set<WatchPump>();
let scheduled = false;

function schedule(pump: WatchPump): void {
  ready.add(pump);
  if (scheduled) return;
  scheduled = true;
  setImmediate(runReady);
}

function runReady(): void {
  let n = 0;
  // In the order they were woken; a pump woken again while it waits keeps its place.
  for (const pump of ready) {
    if (n++ === PUMPS_PER_TURN) break;
    ready.delete(pump);
    pump.pump();
  }
  if (ready.size > 0) setImmediate(runReady);
  else scheduled = false;
}

/**
 * A watch that is only iterable as a cursor: one event is fetched ahead, so that `poll`
 * answers at once what has arrived. A failure of the iteration is thrown by `poll`, once.
 */
export function iteratorCursor(events: StoreWatch): WatchCursor {
  const iterator = events[Symbol.asyncIterator]();
  let ahead: StoreWatchEvent | undefined;
  let failure: { err: unknown } | undefined;
  let ended = false;
  let fetching = false;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const fetch = (): void => {
    if (fetching || ended || ahead !== undefined || failure !== undefined) return;
    fetching = true;
    iterator.next().then(
      (r) => {
        fetching = false;
        if (r.done) ended = true;
        else if (!ended) ahead = r.value;
        notify();
      },
      (err: unknown) => {
        fetching = false;
        if (!ended) failure = { err };
        notify();
      },
    );
  };
  fetch();
  return {
    poll() {
      if (failure !== undefined) {
        const { err } = failure;
        failure = undefined;
        ended = true;
        throw err;
      }
      const event = ahead;
      ahead = undefined;
      fetch();
      return event;
    },
    get done() {
      return ended && ahead === undefined && failure === undefined;
    },
    wait(w) {
      if (ahead !== undefined || failure !== undefined || ended) w();
      else wake = w;
    },
    close() {
      if (ended) return;
      ended = true;
      ahead = undefined;
      void Promise.resolve(iterator.return?.()).catch(() => {});
      notify();
    },
  };
}

// One listener per shutdown signal for all the watches, rather than one each: an
// AbortSignal's listeners are a list that every add and remove walks.
const shutdownListeners = new WeakMap<AbortSignal, Set<() => void>>();

/** Calls `listener` when `signal` aborts; answers the function that forgets it. */
export function onShutdown(signal: AbortSignal, listener: () => void): () => void {
  let listeners = shutdownListeners.get(signal);
  if (listeners === undefined) {
    const set = new Set<() => void>();
    listeners = set;
    shutdownListeners.set(signal, set);
    signal.addEventListener('abort', () => {
      for (const l of [...set]) l();
      set.clear();
    }, { once: true });
  }
  const set = listeners;
  set.add(listener);
  return () => set.delete(listener);
}
