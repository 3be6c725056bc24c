// One store watch over an etcd watch stream. Each watch owns its gRPC stream (gRPC multiplexes
// them over the client's connection), so a slow consumer, a cancellation or a progress request
// concerns that watch alone. Events are queued up to a bound; past it the stream is dropped and,
// once the consumer has caught up, reopened from the last delivered revision, so memory stays
// bounded and every event still arrives exactly once, in order.

import type { IDuplexStream, IEvent, IWatchRequest, IWatchResponse } from 'etcd3';
import { CompactedError, StorageError, type StorageEvent } from './interface.js';
import type { ProgressReporting } from './watch-hub.js';

/** What a watch needs from the backend: the stream factory and the key/revision mapping. */
export interface EtcdWatchSource {
  /** Opens a watch stream (etcd3's WatchClient). */
  watchClient: { watch(): Promise<IDuplexStream<IWatchRequest, IWatchResponse>> };
  /** etcd revision = store revision + offset. */
  revisionOffset: number;
  /** The event in the store's terms (keys without the backend's key prefix). */
  toEvent(event: IEvent): StorageEvent;
}

interface EtcdWatchRange {
  key: Buffer;
  rangeEnd: Buffer;
}

/** A progress request is asked again when its answer has not come in this time. */
const progressRetryMs = 200;
/** Stream breaks survived in a row before the watch fails (the cache then re-lists). */
const maxReconnects = 8;
/** The wait before reopening a broken stream, doubling up to the maximum (about 10 s in all). */
const firstReconnectDelayMs = 100;
const maxReconnectDelayMs = 2000;
/** etcd moves catching-up watches to its synced set every 100 ms; this is ample margin. */
const catchUpPassMs = 500;

type Failure = { kind: 'fatal'; error: Error } | { kind: 'broken'; error: Error };

export function watchEtcd(
  source: EtcdWatchSource,
  range: EtcdWatchRange,
  afterRevision: number,
  bufferSize: number,
  signal: AbortSignal,
): AsyncIterable<StorageEvent> & ProgressReporting {
  const watch = new EtcdWatch(source, range, afterRevision, Math.max(1, bufferSize), signal);
  return {
    [Symbol.asyncIterator]: () => watch.run(),
    progressRevision: () => watch.progressRevision(),
  };
}

class EtcdWatch {
  private queue: StorageEvent[] = [];
  private head = 0;
  private overflowed = false;
  private failure: Failure | undefined;
  private stream: IDuplexStream<IWatchRequest, IWatchResponse> | undefined;
  private watchId: string | undefined;
  private wake: (() => void) | undefined;
  private idle = false;
  /** The newest revision (store terms) delivered to the consumer. */
  private last: number;
  /** A revision up to which the stream has sent every event of the range. */
  private synced = 0;
  /** A requested progress answer not yet trusted: see onProgress. */
  private unconfirmed = 0;
  private progressAskedAt = 0;
  /** etcd's revision (store terms) when the stream's watch was created, and when. */
  private createdRevision = 0;
  private createdAt = 0;
  /** Whether etcd has surely moved the watch into its synced set (see onProgress). */
  private knownSynced = false;
  /** Stream breaks since a stream last worked. */
  private reconnects = 0;

  constructor(
    private readonly source: EtcdWatchSource,
    private readonly range: EtcdWatchRange,
    afterRevision: number,
    private readonly bufferSize: number,
    private readonly signal: AbortSignal,
  ) {
    this.last = afterRevision;
  }

  async *run(): AsyncGenerator<StorageEvent> {
    const onAbort = (): void => this.notify();
    this.signal.addEventListener('abort', onAbort);
    try {
      while (!this.signal.aborted) {
        const event = this.take();
        if (event !== undefined) {
          if (event.revision <= this.last) continue;
          this.last = event.revision;
          yield event;
          continue;
        }
        const failure = this.failure;
        if (failure?.kind === 'fatal') throw failure.error;
        if (failure !== undefined || this.overflowed || this.stream === undefined) {
          this.closeStream();
          this.failure = undefined;
          this.overflowed = false;
          if (failure !== undefined) {
            if (++this.reconnects > maxReconnects) throw failure.error;
            const delay = Math.min(maxReconnectDelayMs, firstReconnectDelayMs * 2 ** (this.reconnects - 1));
            await pause(delay, this.signal);
            if (this.signal.aborted) return;
          }
          await this.open();
          continue;
        }
        this.idle = true;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.idle = false;
      }
    } finally {
      this.idle = false;
      this.signal.removeEventListener('abort', onAbort);
      this.closeStream();
    }
  }

  /**
   * The cache polls this while it waits for a revision. A caught-up watch asks etcd for a
   * progress report and answers the newest revision it may vouch for.
   */
  progressRevision(): number {
    if (!this.idle || this.head < this.queue.length || this.overflowed || this.stream === undefined) return 0;
    const now = Date.now();
    // One request in flight at a time; each answer lets the next poll ask again, and that
    // next answer is what confirms the previous one.
    if (this.progressAskedAt === 0 || now - this.progressAskedAt >= progressRetryMs) this.askProgress(now);
    return Math.max(this.last, this.synced);
  }

  private askProgress(now: number): void {
    if (this.stream === undefined || this.watchId === undefined) return;
    this.progressAskedAt = now;
    try {
      this.stream.write({ progress_request: {} });
    } catch {
      // The stream broke; its error handler reopens it.
    }
  }

  private take(): StorageEvent | undefined {
    if (this.head >= this.queue.length) return undefined;
    const event = this.queue[this.head++];
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return event;
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private async open(): Promise<void> {
    let stream: IDuplexStream<IWatchRequest, IWatchResponse>;
    try {
      stream = await this.source.watchClient.watch();
    } catch (err) {
      this.fail('broken', err);
      return;
    }
    if (this.signal.aborted) {
      stream.cancel();
      return;
    }
    this.stream = stream;
    this.watchId = undefined;
    this.synced = 0;
    this.unconfirmed = 0;
    this.progressAskedAt = 0;
    this.knownSynced = false;
    const requested = this.last;
    stream.on('data', (res: IWatchResponse) => {
      if (this.stream === stream) this.onResponse(res, requested);
    });
    stream.on('error', (err: unknown) => {
      if (this.stream === stream) this.fail('broken', err);
    });
    stream.on('end', () => {
      if (this.stream === stream) this.fail('broken', new StorageError('etcd watch stream ended'));
    });
    stream.write({
      create_request: {
        key: this.range.key,
        range_end: this.range.rangeEnd,
        start_revision: requested + 1 + this.source.revisionOffset,
        prev_kv: true,
        progress_notify: true,
      },
    });
  }

  private onResponse(res: IWatchResponse, requested: number): void {
    const offset = this.source.revisionOffset;
    if (res.canceled) {
      const compacted = Number(res.compact_revision);
      if (compacted > 0) {
        this.fail('fatal', new CompactedError(requested, Math.max(0, compacted - offset)));
      } else {
        this.fail('fatal', new StorageError(`etcd canceled the watch: ${res.cancel_reason || 'no reason given'}`));
      }
      return;
    }
    if (res.created) {
      this.reconnects = 0;
      this.watchId = String(res.watch_id);
      this.createdRevision = Number(res.header.revision) - offset;
      this.createdAt = Date.now();
      // A watch starting right after the current revision is synced from the start.
      this.knownSynced = this.createdRevision <= requested;
      return;
    }
    const events = res.events ?? [];
    if (events.length > 0) {
      // A catching-up watch is sent history up to the revision it was created at, then joins
      // the synced watches.
      if (Number(res.header.revision) - offset >= this.createdRevision) this.knownSynced = true;
      if (this.overflowed) return;
      const pending = this.queue.length - this.head;
      // One response is always taken whole (etcd sends history in batches larger than a small
      // buffer); past that, a consumer too far behind has its queue forgotten, and the watch
      // replays from etcd's history once it catches up.
      if (pending > 0 && pending + events.length > this.bufferSize) {
        this.overflowed = true;
        this.queue = [];
        this.head = 0;
        this.closeStream();
      } else {
        for (const event of events) this.queue.push(this.source.toEvent(event));
      }
      this.notify();
      return;
    }
    this.onProgress(String(res.watch_id), Number(res.header.revision) - offset);
  }

  /**
   * A progress report. etcd sends the periodic ones (`progress_notify`) in line with the
   * watch's events, under the watch's own id: those are exact. The answers to a progress
   * request carry no watch id, and servers before 3.4.25 / 3.5.8 may send them ahead of
   * events still queued for the watch, so such an answer is trusted only once a later
   * answer arrives: the events that were queued when the first was sent have gone out by then.
   * Those servers also answer for a watch still catching up on history, whose events have
   * not been queued at all: answers count only once the watch is known to be synced (it
   * started at the current revision, or history up to its creation arrived), or, when the
   * history held no event of the range, after etcd's catch-up pass has surely run.
   */
  private onProgress(watchId: string, revision: number): void {
    if (watchId === this.watchId) {
      this.synced = Math.max(this.synced, revision);
      this.knownSynced = true;
    } else if (!this.knownSynced && Date.now() - this.createdAt < catchUpPassMs) {
      // Not trusted yet: the next request goes out after the usual retry delay.
    } else {
      if (this.unconfirmed > 0) this.synced = Math.max(this.synced, this.unconfirmed);
      this.unconfirmed = revision;
      this.progressAskedAt = 0;
    }
    this.notify();
  }

  private fail(kind: Failure['kind'], err: unknown): void {
    if (this.failure?.kind !== 'fatal') {
      this.failure = { kind, error: err instanceof Error ? err : new StorageError(String(err)) };
    }
    this.closeStream();
    this.notify();
  }

  private closeStream(): void {
    const stream = this.stream;
    this.stream = undefined;
    this.watchId = undefined;
    if (stream !== undefined) {
      try {
        stream.cancel();
      } catch {
        // already gone
      }
    }
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    timer.unref();
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
