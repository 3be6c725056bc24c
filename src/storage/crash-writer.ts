// The child process of the crash test: writes to a SQLite store as fast as it can and prints
// one line per acknowledged write, until it is killed.
//   node crash-writer.js <dataDir> <run>
// Lines: "ready <revision>", then "P <revision> <key> <value>" for an acknowledged put and
// "D <key>" for an acknowledged deletion.

import { SqliteStorage } from './sqlite.js';

const [dataDir, run] = process.argv.slice(2);
if (dataDir === undefined || run === undefined) {
  process.stderr.write('usage: crash-writer <dataDir> <run>\n');
  process.exit(2);
}

const storage = await SqliteStorage.open({ dataDir });
const enc = new TextEncoder();
const ready = await storage.revision();
process.stdout.write(`ready ${ready}\n`);
// A compaction runs among the writes, so that some kills land in the middle of one.
const compacting = storage.compact(Math.max(0, ready - 50));

async function writer(w: number): Promise<void> {
  for (let n = 0; ; n++) {
    const key = `/crash/${run}/${w}/${n}`;
    const value = `${run}.${w}.${n}`;
    const created = await storage.create(key, enc.encode(value));
    process.stdout.write(`P ${created.modRevision} ${key} ${value}\n`);
    if (n % 3 === 2) {
      const updated = await storage.update(key, enc.encode(`${value}u`), created.modRevision);
      process.stdout.write(`P ${updated.modRevision} ${key} ${value}u\n`);
    }
    if (n % 5 === 4) {
      await storage.delete(key);
      process.stdout.write(`D ${key}\n`);
    }
  }
}

await Promise.all([compacting, ...Array.from({ length: 16 }, (_, w) => writer(w))]);
