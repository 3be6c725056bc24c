// The storage backends by name: the one list the flags, the library options and
// `createStorage` read, so that a backend is added here and nowhere else.
import { StorageError, type Storage } from './interface.js';
import { MemoryStorage, type MemorySnapshot } from './memory.js';
import { SqliteStorage } from './sqlite.js';

export interface CreateStorageOptions {
  backend: StorageBackendName;
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

export interface StorageBackendFactory {
  /** The name and what it needs, as the flag's help shows it. */
  describe: string;
  open(opts: CreateStorageOptions): Promise<Storage>;
}

export const STORAGE_BACKENDS = {
  memory: {
    describe: 'memory',
    open: async (opts) =>
      new MemoryStorage({
        ...(opts.watchBufferSize !== undefined ? { watchBufferSize: opts.watchBufferSize } : {}),
        ...(opts.memorySnapshot !== undefined ? { snapshot: opts.memorySnapshot } : {}),
      }),
  },
  sqlite: {
    describe: 'sqlite (embedded, in the data directory)',
    open: async (opts) => {
      if (opts.dataDir === undefined || opts.dataDir === '') {
        throw new StorageError('the sqlite storage backend needs a data directory');
      }
      return SqliteStorage.open({
        dataDir: opts.dataDir,
        ...(opts.watchBufferSize !== undefined ? { watchBufferSize: opts.watchBufferSize } : {}),
        ...(opts.busyTimeoutMs !== undefined ? { busyTimeoutMs: opts.busyTimeoutMs } : {}),
      });
    },
  },
  etcd: {
    describe: 'etcd (--etcd-servers)',
    open: async (opts) => {
      if (opts.etcdServers === undefined || opts.etcdServers.length === 0) {
        throw new StorageError('the etcd storage backend needs at least one etcd server URL (--etcd-servers)');
      }
      // Loaded only when asked for: its gRPC client costs ~200 ms of start-up.
      return (await import('./etcd.js')).EtcdStorage.open({
        servers: opts.etcdServers,
        ...(opts.etcdPrefix !== undefined ? { keyPrefix: opts.etcdPrefix } : {}),
        ...(opts.etcdTls !== undefined ? { tls: opts.etcdTls } : {}),
        ...(opts.watchBufferSize !== undefined ? { watchBufferSize: opts.watchBufferSize } : {}),
      });
    },
  },
} as const satisfies Record<string, StorageBackendFactory>;

export type StorageBackendName = keyof typeof STORAGE_BACKENDS;

/** The names, in the registry's order. */
export const STORAGE_BACKEND_NAMES = Object.keys(STORAGE_BACKENDS) as StorageBackendName[];

export function isStorageBackendName(name: unknown): name is StorageBackendName {
  return typeof name === 'string' && Object.hasOwn(STORAGE_BACKENDS, name);
}

/** `a, b or c`: the names for a message or a flag's help. */
export function listBackends(words: readonly string[] = STORAGE_BACKEND_NAMES): string {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]!}`;
}
