import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { FakeClock } from '../apimachinery/clock.js';
import { setFlavor } from '../naming/index.js';
import { EventSnapshot } from './backend.js';
import { backupTimestamp, LogBackend, RotatingFile } from './log.js';
import { AuditMetrics } from './metrics.js';
import type { AuditEvent } from './types.js';

setFlavor('orch');

const dir = (): string => mkdtempSync(join(tmpdir(), 'audit-log-'));
const line = (n: number, size = 100): string => `${String(n).padStart(4, '0')}${'x'.repeat(size - 5)}\n`;

describe('rotating audit log file', () => {
  it('names backups as lumberjack does', () => {
    assert.equal(backupTimestamp(new Date(Date.UTC(2024, 1, 3, 4, 5, 6, 7))), '2024-02-03T04-05-06.007');
  });

  it('rotates past maxBytes and keeps maxBackups', async () => {
    const d = dir();
    const clock = new FakeClock(Date.UTC(2024, 0, 1));
    const f = new RotatingFile(join(d, 'audit.log'), { maxBytes: 250, maxBackups: 2, maxAgeDays: 0, compress: false }, clock);
    for (let i = 0; i < 10; i++) {
      f.write(line(i));
      await f.settled();
      clock.step(1000);
    }
    await f.settled();
    const files = readdirSync(d).sort();
    // 10 lines of 100 bytes, two per file: 5 files written, the current and two backups kept.
    assert.deepEqual(files, ['audit-2024-01-01T00-00-06.000.log', 'audit-2024-01-01T00-00-08.000.log', 'audit.log']);
    assert.equal(readFileSync(join(d, 'audit.log'), 'utf8'), line(8) + line(9));
    assert.equal(readFileSync(join(d, 'audit-2024-01-01T00-00-08.000.log'), 'utf8'), line(6) + line(7));
    assert.equal(statSync(join(d, 'audit.log')).mode & 0o777, 0o600);
    await f.close();
  });

  it('continues an existing file and rotates it when full', async () => {
    const d = dir();
    writeFileSync(join(d, 'a.log'), line(0, 200));
    const f = new RotatingFile(join(d, 'a.log'), { maxBytes: 250, maxBackups: 0, maxAgeDays: 0, compress: false }, new FakeClock());
    f.write(line(1));
    await f.settled();
    assert.equal(readdirSync(d).length, 2);
    assert.equal(readFileSync(join(d, 'a.log'), 'utf8'), line(1));
    await f.close();
  });

  it('writes the lines of one turn together, rotating between them without losing a backup', async () => {
    const d = dir();
    const f = new RotatingFile(join(d, 'a.log'), { maxBytes: 100, maxBackups: 0, maxAgeDays: 0, compress: false }, new FakeClock());
    for (let i = 0; i < 4; i++) f.write(line(i));
    assert.equal(readFileSync(join(d, 'a.log'), 'utf8'), '', 'nothing written before the turn ends');
    await f.settled();
    const files = readdirSync(d).sort();
    assert.deepEqual(files, ['a-2024-01-01T00-00-00.000.log', 'a-2024-01-01T00-00-00.001.log', 'a-2024-01-01T00-00-00.002.log', 'a.log']);
    assert.equal(files.map((n) => readFileSync(join(d, n), 'utf8')).join(''), line(0) + line(1) + line(2) + line(3));
    await f.close();
  });

  it('counts lines it could not write', async () => {
    const d = dir();
    const failed: number[] = [];
    const f = new RotatingFile(join(d, 'a.log'), { maxBytes: 1000, maxBackups: 0, maxAgeDays: 0, compress: false }, new FakeClock(), (_e, n) => failed.push(n));
    await f.close();
    f.write(line(0));
    f.write(line(1));
    await f.settled();
    assert.deepEqual(failed, [2]);
  });

  it('refuses a single line larger than the file may be', async () => {
    const f = new RotatingFile(join(dir(), 'a.log'), { maxBytes: 50, maxBackups: 0, maxAgeDays: 0, compress: false }, new FakeClock());
    assert.throws(() => f.write(line(1)), /write length 100 exceeds maximum file size 50/);
    await f.close();
  });

  it('removes backups older than maxAge days and compresses the rest', async () => {
    const d = dir();
    const clock = new FakeClock(Date.UTC(2024, 0, 1));
    const f = new RotatingFile(join(d, 'audit'), { maxBytes: 150, maxBackups: 0, maxAgeDays: 2, compress: true }, clock);
    f.write(line(0));
    f.write(line(1)); // rotates: backup of day 0
    await f.settled();
    clock.step(3 * 24 * 3_600_000);
    f.write(line(2)); // rotates: backup of day 3; the day-0 backup is too old
    await f.settled();
    const files = readdirSync(d).sort();
    assert.deepEqual(files, ['audit', 'audit-2024-01-04T00-00-00.000.gz']);
    assert.equal(gunzipSync(readFileSync(join(d, files[1]!))).toString(), line(1));
    await f.close();
  });

  it('the backend writes JSON lines and counts a failed write', async () => {
    const lines: string[] = [];
    const metrics = new AuditMetrics();
    const ev: AuditEvent = {
      level: 'Metadata', auditID: 'x', stage: 'ResponseComplete', requestURI: '/', verb: 'get', user: { username: 'u' },
      sourceIPs: [], userAgent: '', requestReceivedTimestamp: 0, stageTimestamp: 0,
    };
    const ok = new LogBackend({ write: (t) => void lines.push(t), close: async () => {} }, 'json', metrics, 'audit.orch.io/v1');
    assert.equal(ok.processEvents([new EventSnapshot(ev)]), true);
    assert.match(lines[0]!, /^\{"kind":"Event","apiVersion":"audit.orch.io\/v1",.*\}\n$/);
    const failing = new LogBackend({ write: () => { throw new Error('disk full'); }, close: async () => {} }, 'legacy', metrics, 'audit.orch.io/v1');
    assert.equal(failing.processEvents([new EventSnapshot(ev), new EventSnapshot(ev)]), false);
    assert.equal(await metrics.value('error', 'log'), 2);
    assert.equal(existsSync('/nonexistent'), false);
  });
});
