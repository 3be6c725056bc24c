// The etcd v3 backend as the server holds it: the etcd client (etcd-engine.ts, see there for
// the model) runs in a worker thread (etcd-worker.ts), so that gRPC's per-call CPU stays off
// the event loop. Calls made in one turn of the loop cross in one message, each still its
// own etcd call; watches stream their events back in batches, and the progress a consistent
// read waits for is asked of the worker and answered behind the events it covers.

import { Worker } from 'node:worker_threads';
import { StorageError, type Item, type ListOptions, type ListResult, type Storage, type StorageEvent } from './interface.js';
import type { EtcdStorageOptions } from './etcd-engine.js';
import { fromWireError, type toWireError } from './sqlite-protocol.js';
import { WorkerRequests, type WorkerReply } from './worker-requests.js';
import type { ProgressReporting } from './watch-hub.js';

export type { EtcdStorageOptions } from './etcd-engine.js';
export { prefixEnd } from './etcd-engine.js';

type WireError = ReturnType<typeof toWireError>;

export type EtcdRequest =
  | { op: 'revision' }
  | { op: 'get'; key: string; atRevision?: number }
  | { op: 'list'; prefix: string; opts: ListOptions }
  | { op: 'create'; key: string; value: Uint8Array }
  | { op: 'update'; key: string; value: Uint8Array; ifModRevision?: number }
  | { op: 'delete'; key: string; ifModRevision?: number }
  | { op: 'compact'; revision: number };

export type EtcdResult = number | Item | ListResult | { item?: Item; revision: number } | null;

export type EtcdReply = WorkerReply<EtcdResult>;

export type EtcdToWorker =
  | { type: 'open'; opts: EtcdStorageOptions }
  | { type: 'batch'; requests: { id: number; req: EtcdRequest }[] }
  | { type: 'watch'; wid: number; prefix: string; after: number }
  | { type: 'unwatch'; wid: number }
  | { type: 'progress'; wid: number }
  | { type: 'close' };

export type EtcdFromWorker =
  | { type: 'opened' }
  | { type: 'open-failed'; message: string }
  | { type: 'replies'; replies: EtcdReply[] }
  | { type: 'events'; wid: number; events: StorageEvent[] }
  | { type: 'progress'; wid: number; revision: number }
  | { type: 'watch-end'; wid: number; error?: WireError }
  | { type: 'closed' };

/** One watch's events as they arrive from the worker, and the progress it last reported. */
class WatchChannel {
  private queue: StorageEvent[] = [];
  private head = 0;
  private wake: (() => void) | undefined;
  private waiting = false;
  private ended = false;
  private error: StorageError | undefined;
  private progress = 0;
  private progressAsked = false;

  push(events: StorageEvent[]): void {
    for (const e of events) this.queue.push(e);
    this.notify();
  }

  reportProgress(revision: number): void {
    this.progressAsked = false;
    this.progress = Math.max(this.progress, revision);
  }

  end(error?: StorageError): void {
    this.ended = true;
    this.error ??= error;
    this.notify();
  }

  async *events(signal: AbortSignal): AsyncGenerator<StorageEvent> {
    const onAbort = (): void => this.notify();
    signal.addEventListener('abort', onAbort);
    try {
      for (;;) {
        if (signal.aborted) return;
        if (this.head < this.queue.length) {
          const event = this.queue[this.head++] as StorageEvent;
          if (this.head > 1024 && this.head * 2 > this.queue.length) {
            this.queue = this.queue.slice(this.head);
            this.head = 0;
          }
          yield event;
          continue;
        }
        if (this.error) throw this.error;
        if (this.ended) return;
        this.waiting = true;
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.waiting = false;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * While the consumer waits with nothing queued: the newest revision the worker's watch
   * vouched for (every event at or below it arrived before its report), asking for a fresh
   * report; otherwise 0.
   */
  progressRevision(ask: () => void): number {
    if (!this.waiting || this.head < this.queue.length || this.ended) return 0;
    if (!this.progressAsked) {
      this.progressAsked = true;
      ask();
    }
    return this.progress;
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

export class EtcdStorage implements Storage {
  private readonly requests: WorkerRequests<EtcdRequest, EtcdResult>;
  private readonly watches = new Map<number, WatchChannel>();
  private nextWatch = 1;
  private failure: StorageError | undefined;
  private closing: Promise<void> | undefined;
  private exited = false;

  private constructor(private readonly worker: Worker) {
    this.requests = new WorkerRequests(worker, (requests) => {
      if (!this.exited) worker.postMessage({ type: 'batch', requests } satisfies EtcdToWorker);
    });
  }

  /** Starts the worker, connects and checks that etcd answers. */
  static async open(opts: EtcdStorageOptions): Promise<EtcdStorage> {
    if (opts.servers.length === 0) throw new StorageError('the etcd storage backend needs at least one server URL');
    const worker = new Worker(new URL('./etcd-worker.js', import.meta.url));
    await new Promise<void>((resolve, reject) => {
      const onMessage = (msg: EtcdFromWorker): void => {
        worker.off('error', onError);
        worker.off('message', onMessage);
        if (msg.type === 'opened') resolve();
        else if (msg.type === 'open-failed') reject(new StorageError(msg.message));
        else reject(new StorageError(`unexpected message from the etcd worker: ${msg.type}`));
      };
      const onError = (err: Error): void => {
        worker.off('message', onMessage);
        reject(new StorageError(`etcd worker failed to start: ${err.message}`));
      };
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.postMessage({ type: 'open', opts } satisfies EtcdToWorker);
    }).catch(async (err: unknown) => {
      await worker.terminate();
      throw err;
    });
    const storage = new EtcdStorage(worker);
    storage.attach();
    return storage;
  }

  async revision(): Promise<number> {
    return (await this.call({ op: 'revision' })) as number;
  }

  async get(key: string, opts?: { atRevision?: number }): Promise<{ item?: Item; revision: number }> {
    return (await this.call({ op: 'get', key, ...(opts?.atRevision !== undefined ? { atRevision: opts.atRevision } : {}) })) as { item?: Item; revision: number };
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    return (await this.call({ op: 'list', prefix, opts })) as ListResult;
  }

  async create(key: string, value: Uint8Array): Promise<Item> {
    return (await this.call({ op: 'create', key, value })) as Item;
  }

  async update(key: string, value: Uint8Array, ifModRevision?: number): Promise<Item> {
    return (await this.call({ op: 'update', key, value, ...(ifModRevision !== undefined ? { ifModRevision } : {}) })) as Item;
  }

  async delete(key: string, ifModRevision?: number): Promise<Item> {
    return (await this.call({ op: 'delete', key, ...(ifModRevision !== undefined ? { ifModRevision } : {}) })) as Item;
  }

  async compact(revision: number): Promise<void> {
    await this.call({ op: 'compact', revision });
  }

  watch(prefix: string, afterRevision: number, signal: AbortSignal): AsyncIterable<StorageEvent> & ProgressReporting {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const storage = this;
    let current: { wid: number; channel: WatchChannel } | undefined;
    return {
      async *[Symbol.asyncIterator]() {
        if (storage.failure !== undefined || signal.aborted) return;
        const wid = storage.nextWatch++;
        const channel = new WatchChannel();
        storage.watches.set(wid, channel);
        current = { wid, channel };
        storage.worker.postMessage({ type: 'watch', wid, prefix, after: afterRevision } satisfies EtcdToWorker);
        try {
          yield* channel.events(signal);
        } finally {
          current = undefined;
          if (storage.watches.delete(wid) && !storage.exited) storage.worker.postMessage({ type: 'unwatch', wid } satisfies EtcdToWorker);
        }
      },
      progressRevision: () => {
        const c = current;
        if (c === undefined) return 0;
        return c.channel.progressRevision(() => {
          if (!storage.exited) storage.worker.postMessage({ type: 'progress', wid: c.wid } satisfies EtcdToWorker);
        });
      },
    };
  }

  close(): Promise<void> {
    this.closing ??= new Promise((resolve) => {
      this.requests.flush();
      this.failure ??= new StorageError('storage is closed');
      for (const channel of this.watches.values()) channel.end();
      this.watches.clear();
      if (this.exited) return resolve();
      this.worker.ref();
      this.worker.once('exit', () => resolve());
      this.worker.postMessage({ type: 'close' } satisfies EtcdToWorker);
    });
    return this.closing;
  }

  private attach(): void {
    this.worker.unref();
    this.worker.on('message', (msg: EtcdFromWorker) => {
      switch (msg.type) {
        case 'replies':
          this.requests.settle(msg.replies);
          return;
        case 'events':
          this.watches.get(msg.wid)?.push(msg.events);
          return;
        case 'progress':
          this.watches.get(msg.wid)?.reportProgress(msg.revision);
          return;
        case 'watch-end': {
          const channel = this.watches.get(msg.wid);
          this.watches.delete(msg.wid);
          channel?.end(msg.error !== undefined ? fromWireError(msg.error) : undefined);
          return;
        }
        default:
          return;
      }
    });
    this.worker.on('error', (err) => this.fail(new StorageError(`etcd worker failed: ${err.message}`)));
    this.worker.on('exit', () => {
      this.exited = true;
      this.fail(this.failure ?? new StorageError('etcd worker exited'));
    });
  }

  private fail(err: StorageError): void {
    this.failure ??= err;
    this.requests.failAll(err);
    for (const channel of this.watches.values()) channel.end(err);
    this.watches.clear();
  }

  private call(req: EtcdRequest): Promise<EtcdResult> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return this.requests.call(req);
  }
}
