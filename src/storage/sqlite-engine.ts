// The SQLite log store, synchronous: one row per revision in the spirit of kine. It runs
// inside the backend's worker thread; every batch of requests is one transaction, and no
// answer leaves the batch before its commit is durable (WAL, synchronous=FULL).

import Database from 'better-sqlite3';
import {
  ConflictError,
  KeyExistsError,
  NotFoundError,
  StorageError,
  TooLargeResourceVersionError,
  CompactedError,
  type Item,
  type ListResult,
  type StorageEvent,
} from './interface.js';
import { compareKeys, prefixEnd } from './keys.js';
import { pageLimit, readRevision } from './revisions.js';
import { toWireError, type SqliteReply, type SqliteRequest, type SqliteResult } from './sqlite-protocol.js';
import { itemsInChunks } from './sqlite-wire.js';

const schemaVersion = '1';

/**
 * `log` holds one row per revision. `prev_revision` points at the row this write replaced
 * (0 when the key did not exist), so an event's previous value survives compaction: the row
 * it points at is the newest one at or before any retained revision.
 */
export const schemaSql = `
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE log (
  revision INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  value BLOB
);
CREATE INDEX log_key_revision ON log (key, revision);
`;

interface Row {
  revision: number;
  key: string;
  create_revision: number;
  prev_revision: number;
  deleted: number;
  value: Buffer | null;
}

interface EventRow extends Row {
  p_revision: number | null;
  p_create_revision: number | null;
  p_value: Buffer | null;
}

const columns = 'revision, key, create_revision, prev_revision, deleted, value';

class OpenError extends StorageError {}

function* rowsAsItems(rows: Iterable<Row>): Generator<Item> {
  for (const row of rows) yield toItem(row);
}

/** Paged lists whose remaining counts are kept at once. */
const LIVE_COUNTS = 256;

function toItem(row: { key: string; revision: number; create_revision: number; value: Buffer | null }): Item {
  return {
    key: row.key,
    value: row.value ?? new Uint8Array(0),
    createRevision: row.create_revision,
    modRevision: row.revision,
  };
}

function asBuffer(value: Uint8Array): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

function sqliteCode(err: unknown): string {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string') return err.code;
  return '';
}

export class SqliteEngine {
  private readonly db: Database.Database;
  private current = 0;
  private compacted = 0;
  private readonly stmt;

  constructor(readonly file: string, busyTimeoutMs = 1000, verify = true) {
    try {
      this.db = new Database(file, { timeout: busyTimeoutMs });
    } catch (err) {
      throw new OpenError(`cannot open storage database ${file}: ${(err as Error).message}`);
    }
    try {
      // Exclusive locking keeps the file locked for as long as this connection lives, so a
      // second server on the same data directory fails at start instead of sharing the WAL.
      this.db.pragma('locking_mode = EXCLUSIVE');
      const mode = this.db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal') throw new OpenError(`storage database ${file} cannot use write-ahead logging (journal mode ${String(mode)})`);
      this.db.pragma('synchronous = FULL');
      this.initSchema();
      if (verify) this.verifyIntegrity();
      // The first write takes the exclusive lock now rather than at the first request.
      this.db.prepare(`UPDATE meta SET value = value WHERE name = 'schema_version'`).run();
    } catch (err) {
      this.db.close();
      throw this.openError(err);
    }
    this.stmt = {
      latest: this.db.prepare<[string], Row>(`SELECT ${columns} FROM log WHERE key = ? ORDER BY revision DESC LIMIT 1`),
      latestAt: this.db.prepare<[string, number], Row>(
        `SELECT ${columns} FROM log WHERE key = ? AND revision <= ? ORDER BY revision DESC LIMIT 1`,
      ),
      insert: this.db.prepare<[number, string, number, number, number, Buffer | null]>(
        `INSERT INTO log (${columns}) VALUES (?, ?, ?, ?, ?, ?)`,
      ),
      compact: this.db.prepare<[{ rev: number }]>(
        `DELETE FROM log WHERE revision <= @rev AND (deleted = 1 OR EXISTS (
           SELECT 1 FROM log AS newer WHERE newer.key = log.key AND newer.revision > log.revision AND newer.revision <= @rev))`,
      ),
      setMeta: this.db.prepare<[string, string]>(`INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)`),
    };
    this.compacted = Number(this.meta('compact_revision') ?? '0');
    const max = this.db.prepare<[], { r: number | null }>('SELECT MAX(revision) AS r FROM log').get()?.r ?? 0;
    // Compaction may remove the newest row (a deletion), never the revision counter.
    this.current = Math.max(max, this.compacted);
  }

  get revision(): number {
    return this.current;
  }

  get compactedRevision(): number {
    return this.compacted;
  }

  close(): void {
    this.db.close();
  }

  /** Runs a batch as one transaction; each request gets its own answer or storage error. */
  runBatch(requests: { id: number; req: SqliteRequest }[]): { replies: SqliteReply[]; events: StorageEvent[] } {
    const before = this.current;
    const replies: SqliteReply[] = [];
    const events: StorageEvent[] = [];
    try {
      // The connection holds the file exclusively, so a deferred transaction never waits.
      this.db.exec('BEGIN');
      for (const { id, req } of requests) {
        try {
          replies.push({ id, ok: true, result: this.handle(req, events) });
        } catch (err) {
          if (!(err instanceof StorageError)) throw err;
          replies.push({ id, ok: false, error: toWireError(err) });
        }
      }
      this.db.exec('COMMIT');
      return { replies, events };
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.current = before;
      const error = toWireError(new StorageError(`storage transaction failed: ${(err as Error).message}`));
      return { replies: requests.map(({ id }) => ({ id, ok: false, error })), events: [] };
    }
  }

  private handle(req: SqliteRequest, events: StorageEvent[]): SqliteResult {
    switch (req.op) {
      case 'revision':
        return this.current;
      case 'get': {
        const revision = readRevision(req.atRevision, this.current, this.compacted);
        const row = revision === this.current ? this.stmt.latest.get(req.key) : this.stmt.latestAt.get(req.key, revision);
        return row === undefined || row.deleted ? { revision } : { item: toItem(row), revision };
      }
      case 'list':
        return this.list(req.prefix, req.atRevision, req.startKey, req.limit);
      case 'events':
        return this.events(req.prefix, req.after, req.limit);
      case 'create': {
        const prev = this.live(req.key);
        if (prev !== undefined) throw new KeyExistsError(req.key);
        const revision = this.current + 1;
        this.stmt.insert.run(revision, req.key, revision, 0, 0, asBuffer(req.value));
        this.current = revision;
        const item: Item = { key: req.key, value: req.value, createRevision: revision, modRevision: revision };
        events.push({ type: 'put', key: req.key, revision, item });
        return item;
      }
      case 'update': {
        const prev = this.checkedLive(req.key, req.ifModRevision);
        const revision = this.current + 1;
        this.stmt.insert.run(revision, req.key, prev.createRevision, prev.modRevision, 0, asBuffer(req.value));
        this.current = revision;
        const item: Item = { key: req.key, value: req.value, createRevision: prev.createRevision, modRevision: revision };
        events.push({ type: 'put', key: req.key, revision, item, prev });
        return item;
      }
      case 'delete': {
        const prev = this.checkedLive(req.key, req.ifModRevision);
        const revision = this.current + 1;
        this.stmt.insert.run(revision, req.key, prev.createRevision, prev.modRevision, 1, null);
        this.current = revision;
        events.push({ type: 'delete', key: req.key, revision, prev });
        return prev;
      }
      case 'compact':
        this.compact(req.revision);
        return null;
    }
  }

  private live(key: string): Item | undefined {
    const row = this.stmt.latest.get(key);
    return row === undefined || row.deleted ? undefined : toItem(row);
  }

  private checkedLive(key: string, ifModRevision: number | undefined): Item {
    const prev = this.live(key);
    if (prev === undefined) throw new NotFoundError(key);
    if (ifModRevision !== undefined && ifModRevision !== prev.modRevision) {
      throw new ConflictError(key, ifModRevision, prev.modRevision);
    }
    return prev;
  }

  private list(prefix: string, atRevision?: number, startKey?: string, limit?: number): ListResult {
    const revision = readRevision(atRevision, this.current, this.compacted);
    const start = startKey !== undefined && compareKeys(startKey, prefix) > 0 ? startKey : prefix;
    const end = prefixEnd(prefix);
    const range = end === undefined ? 'l.key >= ?' : 'l.key >= ? AND l.key < ?';
    const bounds: (string | number)[] = end === undefined ? [start] : [start, end];
    // A key's row at `revision` is its newest one not after it; the key is live when that row
    // is not a deletion. Put as "no newer row up to `revision`", the rows come in index order
    // and a page stops after `limit` of them, where a newest-per-key grouping sorts the whole range.
    const live = `FROM log AS l WHERE ${range} AND l.revision <= ? AND l.deleted = 0
         AND NOT EXISTS (SELECT 1 FROM log AS n WHERE n.key = l.key AND n.revision > l.revision AND n.revision <= ?)`;
    const max = pageLimit(limit);
    const page = this.prepared<Row>(
        `SELECT ${columns.split(', ').map((c) => `l.${c}`).join(', ')} ${live} ORDER BY l.key${Number.isFinite(max) ? ' LIMIT ?' : ''}`,
    ).iterate(...bounds, revision, revision, ...(Number.isFinite(max) ? [max] : []));
    const items = itemsInChunks(rowsAsItems(page));
    let remaining = 0;
    if (items.length === max) {
      const countKey = `${revision}\u0000${prefix}\u0000${start}`;
      const from = this.liveCounts.get(countKey) ?? this.prepared<{ n: number }>(`SELECT COUNT(*) AS n ${live}`).get(...bounds, revision, revision)?.n ?? items.length;
      remaining = from - items.length;
      // The next page starts right after this one's last key: at a fixed revision its count is known.
      if (remaining > 0) this.rememberLiveCount(`${revision}\u0000${prefix}\u0000${items[items.length - 1]!.key}\u0000`, remaining);
    }
    return { items, revision, more: remaining > 0, remaining };
  }

  /**
   * Live keys from a start key on, at a revision, by the page that ended there: a paged list
   * reads each page at its first page's revision, whose contents never change, so counting
   * what remains once per list instead of once per page keeps a walk through all the pages
   * linear. A compacted revision is refused before its count is read.
   */
  private readonly liveCounts = new Map<string, number>();

  private rememberLiveCount(key: string, n: number): void {
    if (this.liveCounts.size >= LIVE_COUNTS) this.liveCounts.delete(this.liveCounts.keys().next().value!);
    this.liveCounts.set(key, n);
  }

  private events(prefix: string, after: number, limit: number): StorageEvent[] {
    if (after < this.compacted) throw new CompactedError(after, this.compacted);
    const end = prefixEnd(prefix);
    const range = end === undefined ? 'l.key >= ?' : 'l.key >= ? AND l.key < ?';
    const rows = this.prepared<EventRow>(
        `SELECT l.revision, l.key, l.create_revision, l.prev_revision, l.deleted, l.value,
                p.revision AS p_revision, p.create_revision AS p_create_revision, p.value AS p_value
         FROM log AS l LEFT JOIN log AS p ON p.revision = l.prev_revision AND l.prev_revision > 0
         WHERE l.revision > ? AND ${range} ORDER BY l.revision LIMIT ?`,
    ).all(after, ...(end === undefined ? [prefix] : [prefix, end]), limit);
    return rows.map((row) => {
      const prev: Item | undefined =
        row.p_revision === null
          ? undefined
          : { key: row.key, value: row.p_value ?? new Uint8Array(0), createRevision: row.p_create_revision ?? 0, modRevision: row.p_revision };
      if (row.deleted) return { type: 'delete', key: row.key, revision: row.revision, ...(prev ? { prev } : {}) };
      return { type: 'put', key: row.key, revision: row.revision, item: toItem(row), ...(prev ? { prev } : {}) };
    });
  }

  private compact(revision: number): void {
    if (revision <= this.compacted) return;
    if (revision > this.current) throw new TooLargeResourceVersionError(revision, this.current);
    this.stmt.compact.run({ rev: revision });
    this.stmt.setMeta.run('compact_revision', String(revision));
    this.compacted = revision;
  }

  private readonly statements = new Map<string, Database.Statement<(string | number)[], unknown>>();

  /** Statements whose text depends on the request's shape, prepared once per shape. */
  private prepared<R>(sql: string): Database.Statement<(string | number)[], R> {
    let stmt = this.statements.get(sql);
    if (stmt === undefined) {
      stmt = this.db.prepare<(string | number)[], unknown>(sql);
      this.statements.set(sql, stmt);
    }
    return stmt as Database.Statement<(string | number)[], R>;
  }

  private meta(name: string): string | undefined {
    return this.db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE name = ?').get(name)?.value;
  }

  private initSchema(): void {
    const tables = this.db
      .prepare<[], { name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table'`)
      .all()
      .map((t) => t.name);
    if (tables.length === 0) {
      this.db.transaction(() => {
        this.db.exec(schemaSql);
        this.db.prepare(`INSERT INTO meta (name, value) VALUES ('schema_version', ?), ('compact_revision', '0')`).run(schemaVersion);
      })();
      return;
    }
    const version = tables.includes('meta') ? this.meta('schema_version') : undefined;
    if (version !== schemaVersion || !tables.includes('log')) {
      throw new OpenError(
        `storage database ${this.file} has unknown schema version ${version === undefined ? '(none)' : JSON.stringify(version)}; ` +
          `this server understands version ${schemaVersion}`,
      );
    }
  }

  /** A damaged file is refused at start, before anything is served from it or written to it. */
  private verifyIntegrity(): void {
    const problems = this.db.prepare<[], { quick_check: string }>('PRAGMA quick_check(5)').all().map((r) => r.quick_check);
    if (problems.length !== 1 || problems[0] !== 'ok') {
      throw new OpenError(`storage database ${this.file} is corrupt: ${problems.join('; ')}`);
    }
  }

  private openError(err: unknown): StorageError {
    if (err instanceof OpenError) return err;
    const code = sqliteCode(err);
    const message = err instanceof Error ? err.message : String(err);
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      return new OpenError(`storage database ${this.file} is locked by another process (is another server using this data directory?)`);
    }
    if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
      return new OpenError(`storage database ${this.file} is corrupt or not a database: ${message}`);
    }
    return new OpenError(`cannot open storage database ${this.file}: ${message}`);
  }
}
