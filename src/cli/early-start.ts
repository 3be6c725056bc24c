// What the entry point begins before it loads the server, to run on other threads beside
// that loading: a restart opens its store and reads it whole (the SQLite worker), a first
// start generates its service-account key (the thread pool). This runs before the flags are
// parsed (their table imports most of the server), from the flags it needs found in the
// command line as they appear there; the server checks that its parsed flags name the same
// directory and otherwise closes this store (or generates another key). Only an existing
// data directory of the same flavor is opened, so that nothing is made before the flags are
// checked; whatever fails here is left to the server, which opens the store again and says why.
import type { KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ListResult, Storage } from '../storage/interface.js';
import { defaultDatabaseFile, SqliteStorage } from '../storage/sqlite.js';
import { recordedFlavor } from './datadir.js';
import { generateServiceAccountKey, pkiPaths } from './pki.js';

export interface EarlyStorage {
  dataDir: string;
  /** The opened store; undefined when it could not be opened. */
  storage: Promise<Storage | undefined>;
  /** What the store holds under `prefix`, at one revision; undefined when the read failed. */
  contents: { prefix: string; list: Promise<ListResult | undefined> };
}

const REGISTRY_PREFIX = '/registry/';

/**
 * The value of `--name` (or `-name`) in `argv`, written `--name=value` or `--name value`; the
 * last one wins, as in the parser. A lookup, not a parse: a value that happens to read
 * `--data-dir` can mislead it, which the server's own check of the parsed flags catches.
 */
export function rawFlag(argv: string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const body = argv[i]!.replace(/^--?/, '');
    if (body === name) value = argv[i + 1];
    else if (body.startsWith(`${name}=`)) value = body.slice(name.length + 1);
  }
  return value;
}

export function openStorageEarly(argv: string[]): EarlyStorage | undefined {
  if (argv.some((a) => /^--?(help|version)(=|$)/.test(a))) return undefined;
  if ((rawFlag(argv, 'storage-backend') ?? 'sqlite') !== 'sqlite') return undefined;
  const dataDir = resolve(rawFlag(argv, 'data-dir') ?? './.orch');
  if (recordedFlavor(dataDir) !== (rawFlag(argv, 'compat') ?? 'orch')) return undefined;
  if (!existsSync(join(dataDir, defaultDatabaseFile))) return undefined;
  const storage = SqliteStorage.open({ dataDir }).catch(() => undefined);
  const list = storage.then((s) => s?.list(REGISTRY_PREFIX)).catch(() => undefined);
  return { dataDir, storage, contents: { prefix: REGISTRY_PREFIX, list } };
}

/**
 * A first start's service-account key, begun now: RSA key generation (a prime search on the
 * thread pool) takes as long as loading the server's modules, beside which it runs here.
 * Undefined when the data directory has its key, or the command line may not start a server.
 */
export function generateServiceAccountKeyEarly(argv: string[]): { dataDir: string; key: Promise<KeyObject> } | undefined {
  if (argv.some((a) => /^--?(help|version)(=|$)/.test(a))) return undefined;
  const dataDir = resolve(rawFlag(argv, 'data-dir') ?? './.orch');
  if (existsSync(pkiPaths(dataDir).serviceAccountKey)) return undefined;
  const key = generateServiceAccountKey();
  // Taken by the server, or dropped with a start refused.
  key.catch(() => {});
  return { dataDir, key };
}

/** Closes an early store that the server did not take. */
export async function closeEarlyStorage(early: EarlyStorage | undefined): Promise<void> {
  await (await early?.storage)?.close();
}
