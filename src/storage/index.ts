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
//   Exact R                  -> storage.list(prefix, { atRevision: R, startKey, limit })
//   a continue at R          -> cache.holdsRevision(R) ? cache.list({ startKey, limit }) : storage.list(...)
//   watch from R             -> await cache.cursor(prefix, R, { bookmarks }) (take, wait, close),
//                               or cache.watch(prefix, R, signal, { bookmarks }) to iterate
// Errors: KeyExistsError, ConflictError, NotFoundError, CompactedError (410 for an exact
// read), TooOldResourceVersionError (410), TooLargeResourceVersionError (504 on a wait).

import { StorageError, type Storage } from './interface.js';
import { isStorageBackendName, STORAGE_BACKENDS, type CreateStorageOptions } from './backends.js';

export * from './interface.js';
export { MemoryStorage, type MemoryStorageOptions, type MemorySnapshot } from './memory.js';
export { SqliteStorage, defaultDatabaseFile, type SqliteStorageOptions } from './sqlite.js';
// The etcd backend is loaded only when asked for: its gRPC client costs ~200 ms of start-up.
export type { EtcdStorage, EtcdStorageOptions } from './etcd.js';
export { WatchCache, createCacher, type CacherOptions } from './cacher.js';
export { startCompactor, type CompactorOptions } from './compactor.js';
export type { ProgressReporting } from './watch-hub.js';
export { STORAGE_BACKENDS, STORAGE_BACKEND_NAMES, isStorageBackendName, listBackends, type CreateStorageOptions, type StorageBackendFactory, type StorageBackendName } from './backends.js';

export async function createStorage(opts: CreateStorageOptions): Promise<Storage> {
  const backend: unknown = opts.backend;
  if (!isStorageBackendName(backend)) throw new StorageError(`unknown storage backend ${JSON.stringify(String(backend))}`);
  return STORAGE_BACKENDS[backend].open(opts);
}
