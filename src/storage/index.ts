// The storage layer: the revisioned store (memory and SQLite backends), the watch cache
// above it, and the compactor.
//
// Wiring, in the server:
//   const storage = await createStorage({ backend: 'sqlite', dataDir });
//   const compactor = startCompactor(storage, { intervalMs: 60_000, windowMs: 5 * 60_000 });
//   const pods = createCacher(storage, '/registry/pods/');   // one per resource prefix
//   await pods.ready();
// Reads by resourceVersion, in the registry:
//   unset (most recent)      -> const rv = await cache.waitForFresh(); cache.list(...)
//   "0" (any)                -> cache.list(...)
//   NotOlderThan R           -> await cache.waitForRevision(R); cache.list(...)
//   Exact R, or a continue   -> storage.list(prefix, { atRevision: R, startKey, limit })
//   watch from R             -> cache.watch(prefix, R, signal, { bookmarks })
// Errors: KeyExistsError, ConflictError, NotFoundError, CompactedError (410 for an exact
// read), TooOldResourceVersionError (410), TooLargeResourceVersionError (504 on a wait).

import { StorageError, type Storage } from './interface.js';
import { MemoryStorage, type MemorySnapshot } from './memory.js';
import { SqliteStorage } from './sqlite.js';

export * from './interface.js';
export { MemoryStorage, type MemoryStorageOptions, type MemorySnapshot } from './memory.js';
export { SqliteStorage, defaultDatabaseFile, type SqliteStorageOptions } from './sqlite.js';
// The etcd backend is loaded only when asked for: its gRPC client costs ~200 ms of start-up.
export type { EtcdStorage, EtcdStorageOptions } from './etcd.js';
export { WatchCache, createCacher, type CacherOptions } from './cacher.js';
export { startCompactor, type CompactorOptions } from './compactor.js';
export type { ProgressReporting } from './watch-hub.js';

export interface CreateStorageOptions {
  backend: 'memory' | 'sqlite' | 'etcd';
  /** Required for `sqlite`: the directory holding the database file. */
  dataDir?: string;
  /** Live events a store watch buffers before it replays from history instead. */
  watchBufferSize?: number;
  /** `memory`: start with these contents instead of an empty store. */
  memorySnapshot?: MemorySnapshot;
  /** `sqlite`: how long to wait for the database lock at start. */
  busyTimeoutMs?: number;
  /** `etcd`: the members' client URLs (--etcd-servers). */
  etcdServers?: string[];
  /** `etcd`: prepended to every key, which already begins with `/registry` (--etcd-prefix). */
  etcdPrefix?: string;
  /** `etcd`: PEM contents of --etcd-cafile, --etcd-certfile and --etcd-keyfile, for `https` members. */
  etcdTls?: { ca: Uint8Array; cert?: Uint8Array; key?: Uint8Array };
}

export async function createStorage(opts: CreateStorageOptions): Promise<Storage> {
  const watchBufferSize = opts.watchBufferSize;
  switch (opts.backend) {
    case 'memory':
      return new MemoryStorage({
        ...(watchBufferSize !== undefined ? { watchBufferSize } : {}),
        ...(opts.memorySnapshot !== undefined ? { snapshot: opts.memorySnapshot } : {}),
      });
    case 'sqlite':
      if (opts.dataDir === undefined || opts.dataDir === '') {
        throw new StorageError('the sqlite storage backend needs a data directory');
      }
      return SqliteStorage.open({
        dataDir: opts.dataDir,
        ...(watchBufferSize !== undefined ? { watchBufferSize } : {}),
        ...(opts.busyTimeoutMs !== undefined ? { busyTimeoutMs: opts.busyTimeoutMs } : {}),
      });
    case 'etcd':
      if (opts.etcdServers === undefined || opts.etcdServers.length === 0) {
        throw new StorageError('the etcd storage backend needs at least one etcd server URL (--etcd-servers)');
      }
      return (await import('./etcd.js')).EtcdStorage.open({
        servers: opts.etcdServers,
        ...(opts.etcdPrefix !== undefined ? { keyPrefix: opts.etcdPrefix } : {}),
        ...(opts.etcdTls !== undefined ? { tls: opts.etcdTls } : {}),
        ...(watchBufferSize !== undefined ? { watchBufferSize } : {}),
      });
    default:
      throw new StorageError(`unknown storage backend ${JSON.stringify(String((opts as { backend: unknown }).backend))}`);
  }
}
