// Storage benchmark: the SQLite backend's write and read rates next to the raw better-sqlite3
// ceiling on the same rows and durability, measured in the same run.
// The disk is shared with whatever else runs, so the write measurements are interleaved in
// rounds and each figure is the median of its rounds.
//   npm run bench:storage [-- <seconds per measurement> [<data directory>] [<rounds>]]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createCacher, SqliteStorage } from '../src/storage/index.js';
import { schemaSql } from '../src/storage/sqlite-engine.js';

const seconds = Number(process.argv[2] ?? '1');
const baseDir = process.argv[3] || tmpdir();
const rounds = Number(process.argv[4] ?? '3');
const valueSize = 1024;
const value = new Uint8Array(valueSize).fill(120);

interface Rate {
  ops: number;
  perSecond: number;
}

async function timed(body: (deadline: number) => Promise<number> | number): Promise<Rate> {
  const start = performance.now();
  const ops = await body(start + seconds * 1000);
  const elapsed = (performance.now() - start) / 1000;
  return { ops, perSecond: ops / elapsed };
}

function freshDir(name: string): string {
  return mkdtempSync(join(baseDir, `orch-bench-${name}-`));
}

/** The ceiling: the backend's own table, pragmas and row shape, inserted straight from this thread. */
function rawInserts(rowsPerTransaction: number): Promise<Rate> {
  const dir = freshDir('raw');
  const db = new Database(join(dir, 'raw.db'));
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(schemaSql);
  const insert = db.prepare('INSERT INTO log (revision, key, create_revision, prev_revision, deleted, value) VALUES (?, ?, ?, 0, 0, ?)');
  const buffer = Buffer.from(value);
  let revision = 0;
  const batch = db.transaction((n: number) => {
    for (let i = 0; i < n; i++) {
      revision++;
      insert.run(revision, `/registry/bench/${revision}`, revision, buffer);
    }
  });
  return timed((deadline) => {
    while (performance.now() < deadline) batch(rowsPerTransaction);
    return revision;
  }).finally(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
}

async function storageWrites(writers: number): Promise<Rate> {
  const dir = freshDir(`w${writers}`);
  const storage = await SqliteStorage.open({ dataDir: dir });
  try {
    return await timed(async (deadline) => {
      let ops = 0;
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          for (let i = 0; performance.now() < deadline; i++) {
            await storage.create(`/registry/bench/${w}/${i}`, value);
            ops++;
          }
        }),
      );
      return ops;
    });
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function reads(): Promise<{ store: Rate; cacheGet: Rate; cacheList: Rate }> {
  const dir = freshDir('reads');
  const storage = await SqliteStorage.open({ dataDir: dir });
  const keys = 1000;
  await Promise.all(Array.from({ length: keys }, (_, i) => storage.create(`/registry/bench/${i}`, value)));
  const cache = createCacher(storage, '/registry/bench/');
  try {
    await cache.ready();
    const store = await timed(async (deadline) => {
      let ops = 0;
      await Promise.all(
        Array.from({ length: 64 }, async (_, r) => {
          for (let i = r; performance.now() < deadline; i += 64) {
            await storage.get(`/registry/bench/${i % keys}`);
            ops++;
          }
        }),
      );
      return ops;
    });
    let found = 0;
    const cacheGet = await timed((deadline) => {
      let ops = 0;
      while (performance.now() < deadline) {
        // Check the clock every 10,000 reads so that it does not dominate.
        for (let i = 0; i < 10_000; i++) if (cache.get(`/registry/bench/${i % keys}`) !== undefined) found++;
        ops += 10_000;
      }
      return ops;
    });
    if (found === 0) throw new Error('the cache served no item');
    const cacheList = await timed((deadline) => {
      let ops = 0;
      while (performance.now() < deadline) {
        cache.list({ limit: 500 });
        ops++;
      }
      return ops;
    });
    return { store, cacheGet, cacheList };
  } finally {
    await cache.stop();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const ratio = (a: Rate, b: Rate): string => `${(a.perSecond / b.perSecond).toFixed(2)}x`;

function median(rates: Rate[]): Rate {
  const sorted = [...rates].sort((a, b) => a.perSecond - b.perSecond);
  return sorted[Math.floor(sorted.length / 2)] as Rate;
}

console.log(
  `storage benchmark: ${seconds}s per measurement, median of ${rounds} interleaved rounds, ` +
    `${valueSize}-byte values, WAL + synchronous=FULL, in ${baseDir}`,
);
const samples = { raw1: [] as Rate[], raw64: [] as Rate[], w1: [] as Rate[], w64: [] as Rate[] };
for (let round = 0; round < rounds; round++) {
  samples.raw1.push(await rawInserts(1));
  samples.w1.push(await storageWrites(1));
  samples.raw64.push(await rawInserts(64));
  samples.w64.push(await storageWrites(64));
  const last = (xs: Rate[]): string => fmt((xs[xs.length - 1] as Rate).perSecond);
  console.log(`  round ${round + 1}: raw 1-row ${last(samples.raw1)}, 1 writer ${last(samples.w1)}, raw 64-row ${last(samples.raw64)}, 64 writers ${last(samples.w64)}`);
}
const raw1 = median(samples.raw1);
const raw64 = median(samples.raw64);
const w1 = median(samples.w1);
const w64 = median(samples.w64);
console.log(`raw better-sqlite3, 1 row per transaction:    ${fmt(raw1.perSecond)} rows/s`);
console.log(`raw better-sqlite3, 64 rows per transaction:  ${fmt(raw64.perSecond)} rows/s`);
console.log(`sqlite backend, 1 writer:                      ${fmt(w1.perSecond)} writes/s  (${ratio(w1, raw1)} of raw 1-row)`);
console.log(
  `sqlite backend, 64 concurrent writers:         ${fmt(w64.perSecond)} writes/s  (${ratio(w64, raw1)} of raw 1-row, ${ratio(w64, raw64)} of raw batched)`,
);
const r = await reads();
console.log(`sqlite backend get, 64 concurrent readers:     ${fmt(r.store.perSecond)} reads/s`);
console.log(`watch cache get, single key, in-process:       ${fmt(r.cacheGet.perSecond)} reads/s`);
console.log(`watch cache list, 500 of 1,000 items:          ${fmt(r.cacheList.perSecond)} lists/s`);
const groupCommit = w64.perSecond / raw1.perSecond;
console.log(
  `targets: 64 writers >= 2x raw 1-row: ${groupCommit >= 2 ? 'met' : 'MISSED'} (${groupCommit.toFixed(2)}x); ` +
    `cache reads >= 1,000,000/s: ${r.cacheGet.perSecond >= 1_000_000 ? 'met' : 'MISSED'}`,
);
