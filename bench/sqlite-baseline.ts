// The create baseline of `npm run bench`: what SQLite itself does with the bytes the API
// server stores for a create, through better-sqlite3 in process (no HTTP in front): one row
// per transaction, WAL, synchronous=FULL, in a file on the disk of the server's data
// directory. Started as `node sqlite-baseline.js <file> <value file> <seconds>`; prints one
// line of JSON: rows, elapsed ms, the p99 of one insert in ms and the process's CPU in µs.
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';

export interface SqliteBaselineReport {
  rows: number;
  elapsedMs: number;
  p99ms: number;
  cpuUs: number;
}

function main(file: string, valueFile: string, seconds: number): void {
  const value = readFileSync(valueFile);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value BLOB NOT NULL)');
  const stmt = db.prepare('INSERT INTO kv (key, value) VALUES (?, ?)');
  stmt.run('/warm-up', value);
  const latencies: number[] = [];
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const end = started + seconds * 1000;
  for (let i = 0; ; i++) {
    const t0 = performance.now();
    if (t0 >= end) break;
    // Autocommit: each statement is its own transaction, fsynced before it returns.
    stmt.run(`/registry/core/configmaps/bench/c-${i}`, value);
    latencies.push(performance.now() - t0);
  }
  const elapsedMs = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  db.close();
  latencies.sort((a, b) => a - b);
  const p99ms = latencies[Math.min(latencies.length - 1, Math.floor(0.99 * latencies.length))] ?? NaN;
  const report: SqliteBaselineReport = { rows: latencies.length, elapsedMs, p99ms, cpuUs: cpu.user + cpu.system };
  process.stdout.write(JSON.stringify(report) + '\n');
}

main(process.argv[2]!, process.argv[3]!, Number(process.argv[4]));
