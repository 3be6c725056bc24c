// Fan-out of committed events to the watches of one backend. A watch first replays history
// from the backend's log, then follows live events; a watch whose consumer falls behind by
// more than its buffer drops the buffer and replays from the log again, so a slow consumer
// costs neither memory nor other watchers anything, and still sees every event exactly once.

import type { StorageEvent } from './interface.js';

/** Reads committed events under `prefix` after `after`, oldest first, at most `limit`. */
type HistoryReader = (prefix: string, after: number, limit: number) => Promise<StorageEvent[]>;

/** Implemented by the watches of the built-in backends; lets the watch cache learn progress. */
export interface ProgressReporting {
  /**
   * While the consumer waits for the next event and nothing is buffered: the revision up to
   * which every event under the watched prefix has been handed over (the store may have
   * moved on with writes elsewhere). Otherwise 0: events are still on their way.
   */
  progressRevision(): number;
  /**
   * Set by the consumer to learn when the watch has caught up (it then waits for the next
   * event with nothing buffered), so that a wait for a revision written elsewhere in the
   * store ends then, not at the next poll. Watches that cannot tell leave it uncalled.
   */
  onCaughtUp?: () => void;
}

const historyPage = 1000;

class Subscription {
  private buffer: StorageEvent[] = [];
  private head = 0;
  overflowed = false;
  private wake: (() => void) | undefined;

  constructor(
    readonly prefix: string,
    private readonly capacity: number,
  ) {}

  offer(event: StorageEvent): void {
    if (!event.key.startsWith(this.prefix)) return;
    if (!this.overflowed) {
      if (this.buffer.length - this.head >= this.capacity) {
        this.overflowed = true;
        this.buffer = [];
        this.head = 0;
      } else {
        this.buffer.push(event);
      }
    }
    this.notify();
  }

  notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  take(): StorageEvent | undefined {
    if (this.head >= this.buffer.length) return undefined;
    const event = this.buffer[this.head++];
    if (this.head > 1024 && this.head * 2 > this.buffer.length) {
      this.buffer = this.buffer.slice(this.head);
      this.head = 0;
    }
    return event;
  }

  get empty(): boolean {
    return this.head >= this.buffer.length;
  }

  /** Forgets the buffer and the overflow, before replaying history. */
  reset(): void {
    this.buffer = [];
    this.head = 0;
    this.overflowed = false;
  }

  waitForEvent(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }
}

export class WatchHub {
  private readonly subscriptions = new Set<Subscription>();
  private published = 0;
  private closed = false;

  constructor(
    private readonly readHistory: HistoryReader,
    private readonly bufferSize: number,
  ) {}

  /** The revision of the newest event handed to the watches (or the store's at open). */
  get publishedRevision(): number {
    return this.published;
  }

  /** Sets the starting revision when a store opens. */
  start(revision: number): void {
    this.published = revision;
  }

  /** Hands a committed event to every watch; events must come in revision order. */
  publish(event: StorageEvent): void {
    this.published = event.revision;
    for (const sub of this.subscriptions) sub.offer(event);
  }

  /** Ends every watch (the store is closing). */
  close(): void {
    this.closed = true;
    for (const sub of this.subscriptions) sub.notify();
  }

  watch(prefix: string, afterRevision: number, signal: AbortSignal): AsyncIterable<StorageEvent> & ProgressReporting {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const hub = this;
    let last = afterRevision;
    let idle = false;
    let current: Subscription | undefined;
    async function* run(): AsyncGenerator<StorageEvent> {
      if (hub.closed || signal.aborted) return;
      const sub = new Subscription(prefix, hub.bufferSize);
      hub.subscriptions.add(sub);
      current = sub;
      const onAbort = (): void => sub.notify();
      signal.addEventListener('abort', onAbort);
      try {
        let replay = true;
        while (!signal.aborted && !hub.closed) {
          if (replay || sub.overflowed) {
            replay = false;
            sub.reset();
            // Live events published from here on are buffered, and the log read below
            // reaches at least this far, so nothing falls between the two.
            for (;;) {
              const page = await hub.readHistory(prefix, last, historyPage);
              for (const event of page) {
                if (signal.aborted || hub.closed) return;
                if (event.revision <= last) continue;
                last = event.revision;
                yield event;
              }
              if (page.length < historyPage) break;
            }
            continue;
          }
          const event = sub.take();
          if (event === undefined) {
            idle = true;
            watch.onCaughtUp?.();
            await sub.waitForEvent();
            idle = false;
            continue;
          }
          if (event.revision <= last) continue;
          last = event.revision;
          yield event;
        }
      } finally {
        idle = false;
        signal.removeEventListener('abort', onAbort);
        hub.subscriptions.delete(sub);
      }
    }
    const watch: AsyncIterable<StorageEvent> & ProgressReporting = {
      [Symbol.asyncIterator]: run,
      progressRevision(): number {
        const caughtUp = idle && current !== undefined && current.empty && !current.overflowed;
        return caughtUp ? Math.max(last, hub.published) : 0;
      },
    };
    return watch;
  }
}
