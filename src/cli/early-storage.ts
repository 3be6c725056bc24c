// A restart opens its store, and reads it whole, while the rest of the server's modules
// load: the SQLite worker does both on its own thread, which the module loading would
// otherwise leave waiting until the watch caches ask. Only an existing data directory of
// the same flavor is opened here, so that nothing is made before the flags are checked;
// whatever fails here is left to startServer, which opens the store again and says why.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ParsedFlags } from '../apimachinery/flags.js';
import { createStorage, defaultDatabaseFile, type ListResult, type Storage } from '../storage/index.js';
import { recordedFlavor } from './datadir.js';

export interface EarlyStorage {
  dataDir: string;
  /** The opened store; undefined when it could not be opened. */
  storage: Promise<Storage | undefined>;
  /** What the store holds under `prefix`, at one revision; undefined when the read failed. */
  contents: { prefix: string; list: Promise<ListResult | undefined> };
}

const REGISTRY_PREFIX = '/registry/';

export function openStorageEarly(flags: ParsedFlags): EarlyStorage | undefined {
  if ((flags.string('storage-backend') ?? 'sqlite') !== 'sqlite') return undefined;
  const dataDir = resolve(flags.string('data-dir') ?? './.orch');
  if (recordedFlavor(dataDir) !== (flags.string('compat') ?? 'orch')) return undefined;
  if (!existsSync(join(dataDir, defaultDatabaseFile))) return undefined;
  const storage = createStorage({ backend: 'sqlite', dataDir }).catch(() => undefined);
  const list = storage.then((s) => s?.list(REGISTRY_PREFIX)).catch(() => undefined);
  return { dataDir, storage, contents: { prefix: REGISTRY_PREFIX, list } };
}

/** Closes an early store that the server did not take. */
export async function closeEarlyStorage(early: EarlyStorage | undefined): Promise<void> {
  await (await early?.storage)?.close();
}
