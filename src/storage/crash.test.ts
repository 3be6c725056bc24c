// Kills a writing process at random moments and checks, after each restart, that every
// acknowledged write is there and that the history has no gap.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import { CompactedError, type StorageEvent } from './interface.js';
import { SqliteStorage } from './sqlite.js';
import { takeEvents } from '../testing/storage-conformance.js';

const writerScript = fileURLToPath(new URL('./crash-writer.js', import.meta.url));
const cycles = 24;

interface Acks {
  ready: number;
  puts: { revision: number; key: string; value: string }[];
  deletes: string[];
}

/** Runs the writer until a random moment after it is ready, then SIGKILLs it. */
async function runAndKill(dataDir: string, run: number, checkLock: boolean): Promise<Acks> {
  const child = spawn(process.execPath, [writerScript, dataDir, String(run)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const acks: Acks = { ready: -1, puts: [], deletes: [] };
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout });
  const ready = new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => {
      const [tag, a, b, c] = line.split(' ');
      if (tag === 'ready') {
        acks.ready = Number(a);
        resolve();
      } else if (tag === 'P') acks.puts.push({ revision: Number(a), key: b as string, value: c as string });
      else if (tag === 'D') acks.deletes.push(a as string);
    });
    void exited.then(() => reject(new Error('the writer exited before it was ready')));
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
  try {
    await ready;
    if (checkLock) {
      await assert.rejects(SqliteStorage.open({ dataDir, busyTimeoutMs: 0 }), /locked by another process/);
    }
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 200));
    child.kill('SIGKILL');
    await exited;
    // Lines the child wrote before it died may still sit in the pipe.
    await new Promise<void>((resolve) => (child.stdout.readableEnded ? resolve() : child.stdout.once('close', () => resolve())));
  } finally {
    clearTimeout(guard);
  }
  return acks;
}

it(`keeps every acknowledged write across ${cycles} SIGKILLs`, { timeout: 55_000 }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'orch-crash-'));
  try {
    let verified = 0;
    let totalAcked = 0;
    let compactedAtMost = 0;
    for (let run = 0; run < cycles; run++) {
      const acks = await runAndKill(dataDir, run, run % 6 === 0);
      assert.equal(acks.ready, verified, `run ${run} resumed at the last revision`);
      compactedAtMost = Math.max(0, acks.ready - 50); // what the writer compacts to
      const storage = await SqliteStorage.open({ dataDir });
      try {
        const revision = await storage.revision();
        const newest = Math.max(verified, ...acks.puts.map((p) => p.revision));
        assert.ok(revision >= newest, `revision ${revision} covers every acknowledged write (${newest})`);
        const events = await takeEvents(storage, '', verified, revision - verified);
        const byRevision = new Map<number, StorageEvent>();
        events.forEach((e, i) => {
          assert.equal(e.revision, verified + 1 + i, 'the history has no gap');
          byRevision.set(e.revision, e);
        });
        for (const put of acks.puts) {
          const event = byRevision.get(put.revision);
          assert.equal(event?.type, 'put');
          assert.equal(event?.key, put.key);
          assert.equal(new TextDecoder().decode(event?.item?.value), put.value);
        }
        for (const key of acks.deletes) {
          assert.equal((await storage.get(key)).item, undefined, `acknowledged deletion of ${key}`);
          assert.ok(events.some((e) => e.type === 'delete' && e.key === key));
        }
        totalAcked += acks.puts.length + acks.deletes.length;
        verified = revision;
      } finally {
        await storage.close();
      }
    }
    assert.ok(totalAcked > cycles, `the writers got writes acknowledged (${totalAcked})`);
    t.diagnostic(`${totalAcked} acknowledged writes checked over ${cycles} kills, ${verified} revisions`);
    const storage = await SqliteStorage.open({ dataDir });
    try {
      const all = await takeEvents(storage, '', compactedAtMost, verified - compactedAtMost);
      all.forEach((e, i) => assert.equal(e.revision, compactedAtMost + i + 1));
      await assert.rejects(storage.get('/crash', { atRevision: 1 }), CompactedError, 'the writers compacted');
    } finally {
      await storage.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
