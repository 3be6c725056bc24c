// The SQLite backend, event-loop side: forwards requests to the worker thread that owns the
// database, batching the requests of one turn of the event loop into one message, and fans
// committed events out to watches.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  StorageError,
  type Item,
  type ListOptions,
  type ListResult,
  type Storage,
  type StorageEvent,
} from './interface.js';
import type { FromWorker, SqliteRequest, SqliteResult, ToWorker } from './sqlite-protocol.js';
import { WorkerRequests } from './worker-requests.js';
import { WatchHub, type ProgressReporting } from './watch-hub.js';
import { unpackList, type PackedList } from './sqlite-wire.js';

export interface SqliteStorageOptions {
  dataDir: string;
  /** File name inside the data directory. */
  fileName?: string;
  /** Live events a watch buffers before it falls back to replaying history. */
  watchBufferSize?: number;
  /** How long to wait for the database lock at open. */
  busyTimeoutMs?: number;
  /** Checks the file's integrity at open (default true; linear in the file's size). */
  verifyOnOpen?: boolean;
}

export const defaultDatabaseFile = 'storage.db';

/** The SQLite worker's young generation (V8's default is 16 MiB and more). */
const WORKER_YOUNG_GENERATION_MB = 2;

export class SqliteStorage implements Storage {
  readonly localRevision: boolean = true;
  private readonly hub: WatchHub;
  private readonly requests: WorkerRequests<SqliteRequest, SqliteResult>;
  private failure: StorageError | undefined;
  private closing: Promise<void> | undefined;
  private exited = false;

  private constructor(
    private readonly worker: Worker,
    readonly file: string,
    opts: SqliteStorageOptions,
  ) {
    // While the worker works, requests gather into one message per turn of the event loop.
    this.requests = new WorkerRequests(worker, (requests) => worker.postMessage({ type: 'batch', requests } satisfies ToWorker));
    this.hub = new WatchHub(
      (prefix, after, limit) => this.call({ op: 'events', prefix, after, limit }) as Promise<StorageEvent[]>,
      opts.watchBufferSize ?? 10_000,
    );
  }

  /** Opens (or creates) the database in `dataDir`; fails clearly when locked, corrupt or foreign. */
  static async open(opts: SqliteStorageOptions): Promise<SqliteStorage> {
    try {
      mkdirSync(opts.dataDir, { recursive: true });
    } catch (err) {
      throw new StorageError(`cannot create data directory ${opts.dataDir}: ${(err as Error).message}`);
    }
    const file = join(opts.dataDir, opts.fileName ?? defaultDatabaseFile);
    // A small young generation: every row a list reads is a buffer that is garbage as soon as
    // it is copied into the list's chunks; collected often, the rows of a whole-store read
    // (a restart's) are not held until a large nursery fills, nor kept by the allocator after.
    const worker = new Worker(new URL('./sqlite-worker.js', import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
    const opened = await new Promise<{ revision: number; compacted: number }>((resolve, reject) => {
      const onMessage = (msg: FromWorker): void => {
        worker.off('error', onError);
        worker.off('message', onMessage);
        if (msg.type === 'opened') resolve(msg);
        else if (msg.type === 'open-failed') reject(new StorageError(msg.message));
        else reject(new StorageError(`unexpected message from storage worker: ${msg.type}`));
      };
      const onError = (err: Error): void => {
        worker.off('message', onMessage);
        reject(new StorageError(`storage worker failed to start: ${err.message}`));
      };
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.postMessage({ type: 'open', file, busyTimeoutMs: opts.busyTimeoutMs ?? 1000, verify: opts.verifyOnOpen ?? true } satisfies ToWorker);
    }).catch(async (err: unknown) => {
      await worker.terminate();
      throw err;
    });
    const storage = new SqliteStorage(worker, file, opts);
    storage.hub.start(opened.revision);
    storage.attach();
    return storage;
  }

  /**
   * The store's revision, known here without asking the worker: every committed batch's
   * events reach the hub before any of its writers is answered, so the newest published
   * revision is at or past every write acknowledged so far, which is all a fresh read needs.
   * (A batch committed but not yet answered may be newer; its writes are not acknowledged.)
   */
  async revision(): Promise<number> {
    if (this.failure !== undefined) throw this.failure;
    return this.hub.publishedRevision;
  }

  async get(key: string, opts?: { atRevision?: number }): Promise<{ item?: Item; revision: number }> {
    return (await this.call({ op: 'get', key, ...(opts?.atRevision !== undefined ? { atRevision: opts.atRevision } : {}) })) as {
      item?: Item;
      revision: number;
    };
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    return unpackList((await this.call({ op: 'list', prefix, ...opts })) as PackedList);
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

  watch(prefix: string, afterRevision: number, signal: AbortSignal): AsyncIterable<StorageEvent> & ProgressReporting {
    return this.hub.watch(prefix, afterRevision, signal);
  }

  async compact(revision: number): Promise<void> {
    await this.call({ op: 'compact', revision });
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      if (this.exited) return resolve();
      this.worker.ref();
      this.requests.flush();
      this.failure ??= new StorageError('storage is closed');
      this.worker.once('exit', () => resolve());
      this.worker.postMessage({ type: 'close' } satisfies ToWorker);
    });
    return this.closing;
  }

  private attach(): void {
    this.worker.unref();
    this.worker.on('message', (msg: FromWorker) => {
      if (msg.type !== 'batch') return;
      // Watches see a write no later than its writer hears it was acknowledged.
      for (const event of msg.events) this.hub.publish(event);
      this.requests.settle(msg.replies);
    });
    this.worker.on('error', (err) => this.fail(new StorageError(`storage worker failed: ${err.message}`)));
    this.worker.on('exit', () => {
      this.exited = true;
      this.fail(this.failure ?? new StorageError('storage worker exited'));
    });
  }

  private fail(err: StorageError): void {
    this.failure ??= err;
    this.requests.failAll(err);
    this.hub.close();
  }

  private call(req: SqliteRequest): Promise<SqliteResult> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return this.requests.call(req);
  }
}
