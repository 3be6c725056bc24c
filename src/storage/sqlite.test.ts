import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { StorageError } from './interface.js';
import { SqliteStorage, defaultDatabaseFile } from './sqlite.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('sqlite backend at start', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'orch-sqlite-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates one database file in the data directory', async () => {
    const storage = await SqliteStorage.open({ dataDir: join(dataDir, 'nested') });
    await storage.create('/k', bytes('v'));
    await storage.close();
    assert.ok(statSync(join(dataDir, 'nested', defaultDatabaseFile)).size > 0);
  });

  it('refuses a database another server holds', async () => {
    const first = await SqliteStorage.open({ dataDir });
    try {
      await assert.rejects(SqliteStorage.open({ dataDir, busyTimeoutMs: 50 }), (err: unknown) => {
        assert.ok(err instanceof StorageError);
        assert.match(err.message, /is locked by another process/);
        return true;
      });
      assert.equal((await first.create('/still', bytes('works'))).modRevision, 1);
    } finally {
      await first.close();
    }
    const again = await SqliteStorage.open({ dataDir });
    assert.equal(await again.revision(), 1, 'the lock goes with the server that held it');
    await again.close();
  });

  it('refuses a file that is not a database', async () => {
    writeFileSync(join(dataDir, defaultDatabaseFile), Buffer.alloc(8192, 'garbage!'));
    await assert.rejects(SqliteStorage.open({ dataDir }), /is corrupt or not a database/);
  });

  it('refuses a damaged database', async () => {
    const storage = await SqliteStorage.open({ dataDir });
    const big = new Uint8Array(3000).fill(7);
    for (let i = 0; i < 200; i++) await storage.create(`/k/${String(i).padStart(4, '0')}`, big);
    await storage.close();
    const file = join(dataDir, defaultDatabaseFile);
    // Checkpoint the WAL into the main file, then scribble over pages in its middle.
    const db = new Database(file);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const size = statSync(file).size;
    const fd = openSync(file, 'r+');
    for (let page = 3; page * 4096 < size; page += 7) writeSync(fd, Buffer.alloc(600, 0xa5), 0, 600, page * 4096 + 8);
    closeSync(fd);
    await assert.rejects(SqliteStorage.open({ dataDir }), /corrupt/);
  });

  it('refuses a database of an unknown schema version', async () => {
    const storage = await SqliteStorage.open({ dataDir });
    await storage.close();
    const db = new Database(join(dataDir, defaultDatabaseFile));
    db.prepare(`UPDATE meta SET value = '99' WHERE name = 'schema_version'`).run();
    db.close();
    await assert.rejects(SqliteStorage.open({ dataDir }), /unknown schema version "99"/);
  });

  it('refuses a database that some other program wrote', async () => {
    const db = new Database(join(dataDir, defaultDatabaseFile));
    db.exec('CREATE TABLE notes (body TEXT)');
    db.close();
    await assert.rejects(SqliteStorage.open({ dataDir }), /unknown schema version \(none\)/);
  });

  it('answers every caller of one group commit, each with its own result', async () => {
    const storage = await SqliteStorage.open({ dataDir });
    try {
      await storage.create('/g/taken', bytes('x'));
      const results = await Promise.allSettled([
        storage.create('/g/a', bytes('a')),
        storage.create('/g/taken', bytes('dup')),
        storage.create('/g/b', bytes('b')),
        storage.update('/g/taken', bytes('y'), 999),
        storage.get('/g/a'),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled'],
      );
      const revisions = results.flatMap((r) => (r.status === 'fulfilled' && 'modRevision' in r.value ? [r.value.modRevision] : []));
      assert.deepEqual(revisions, [2, 3]);
      const read = results[4];
      assert.ok(read?.status === 'fulfilled' && 'item' in read.value);
      assert.equal(read.value.item?.modRevision, 2, 'a read sees the writes queued before it');
      assert.equal(await storage.revision(), 3);
    } finally {
      await storage.close();
    }
  });

  it('fails calls after close instead of hanging', async () => {
    const storage = await SqliteStorage.open({ dataDir });
    await storage.close();
    await assert.rejects(storage.get('/k'), /closed/);
    await assert.rejects(storage.revision(), /closed/);
    await storage.close();
  });

  it('answers a revision at or past every acknowledged write, and one the store can read at', async () => {
    const storage = await SqliteStorage.open({ dataDir });
    await storage.create('/r/0', bytes('x'));
    await storage.close();
    const reopened = await SqliteStorage.open({ dataDir });
    try {
      assert.equal(await reopened.revision(), 1, 'the revision at open');
      const acknowledged: number[] = [];
      await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const item = await reopened.create(`/r/${i + 1}`, bytes(String(i)));
          acknowledged.push(item.modRevision);
          const revision = await reopened.revision();
          assert.ok(revision >= Math.max(...acknowledged), `${revision} is behind an acknowledged write`);
          const page = await reopened.list('/r/', { atRevision: revision });
          assert.ok(page.items.some((it) => it.key === `/r/${i + 1}`), 'the write is in a list at that revision');
        }),
      );
      await reopened.delete('/r/0');
      assert.equal(await reopened.revision(), 42, 'a deletion is a revision');
    } finally {
      await reopened.close();
    }
  });
});
