import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../testing/wait.js';
import { findLogSource, parseLogLine, readLog, type LogOptions } from './logs.js';

const base: LogOptions = { previous: false, timestamps: false };

async function read(file: string, opts: Partial<LogOptions>, now = Date.parse('2024-01-01T00:01:00Z')): Promise<string> {
  let out = '';
  for await (const c of readLog(file, { ...base, ...opts }, now)) out += c;
  return out;
}

test('log lines: CRI (partial lines joined), Docker JSON, and plain text', () => {
  assert.deepEqual(parseLogLine('2024-01-01T00:00:01.5Z stdout F hello world'), { time: '2024-01-01T00:00:01.5Z', text: 'hello world', partial: false });
  assert.deepEqual(parseLogLine('2024-01-01T00:00:01Z stderr P part'), { time: '2024-01-01T00:00:01Z', text: 'part', partial: true });
  assert.deepEqual(parseLogLine('{"log":"json line\\n","stream":"stdout","time":"2024-01-01T00:00:02Z"}'), { time: '2024-01-01T00:00:02Z', text: 'json line', partial: false });
  assert.deepEqual(parseLogLine('{"not":"a docker line"}'), { text: '{"not":"a docker line"}', partial: false });
  assert.deepEqual(parseLogLine('just text'), { text: 'just text', partial: false });
});

test('the options: tailLines, limitBytes, timestamps, sinceSeconds and sinceTime', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-logs-'));
  try {
    const file = join(dir, 'c.log');
    writeFileSync(
      file,
      ['2024-01-01T00:00:00Z stdout F one', '2024-01-01T00:00:30Z stdout P tw', '2024-01-01T00:00:30Z stdout F o', '2024-01-01T00:00:50Z stderr F thrée', 'no time'].join('\n') + '\n',
    );
    assert.equal(await read(file, {}), 'one\ntwo\nthrée\nno time\n');
    assert.equal(await read(file, { tailLines: 2 }), 'thrée\nno time\n');
    assert.equal(await read(file, { tailLines: 0 }), '');
    assert.equal(await read(file, { timestamps: true, tailLines: 2 }), '2024-01-01T00:00:50Z thrée\nno time\n');
    assert.equal(await read(file, { limitBytes: 6 }), 'one\ntw');
    assert.equal(await read(file, { sinceSeconds: 20 }), 'thrée\nno time\n', 'lines without a time are kept');
    assert.equal(await read(file, { sinceTime: '2024-01-01T00:00:30Z' }), 'two\nthrée\nno time\n');
    assert.equal(await read(file, { sinceSeconds: 59, sinceTime: '2024-01-01T00:00:40Z' }), 'thrée\nno time\n', 'the later bound wins');
    await assert.rejects(read(join(dir, 'missing.log'), {}), /ENOENT/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a pod's own Logs come before ClusterLogs; an entry without containers is every other container's", () => {
  const logs = [{ namespace: 'shop', name: 'web', logs: [{ containers: ['app'], logsFile: '/a', follow: false }, { containers: [], logsFile: '/rest', follow: false }] }];
  const cluster = [
    { name: 'other', matchNamespaces: ['x'], matchNames: [], logs: [{ containers: [], logsFile: '/x', follow: false }] },
    { name: 'all', matchNamespaces: [], matchNames: ['web', 'api'], logs: [{ containers: ['side'], logsFile: '/side', follow: false }] },
  ];
  assert.equal(findLogSource(logs, cluster, 'shop', 'web', 'app')?.logsFile, '/a');
  assert.equal(findLogSource(logs, cluster, 'shop', 'web', 'side')?.logsFile, '/rest', 'the pod has Logs of its own');
  assert.equal(findLogSource(logs, cluster, 'prod', 'api', 'side')?.logsFile, '/side');
  assert.equal(findLogSource(logs, cluster, 'prod', 'api', 'main'), undefined);
  assert.equal(findLogSource(logs, cluster, 'x', 'any', 'c')?.logsFile, '/x');
});

test('follow: lines appended later come too, until the request ends', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-logs-'));
  try {
    const file = join(dir, 'c.log');
    writeFileSync(file, 'before\n');
    const ac = new AbortController();
    let out = '';
    const reading = (async () => {
      for await (const c of readLog(file, { ...base, follow: true }, 0, ac.signal)) out += c;
    })();
    await eventually(() => out === 'before\n', 'the first line');
    appendFileSync(file, '2024-01-01T00:00:00Z stdout F after\npart');
    await eventually(() => out === 'before\nafter\n', 'the appended line', 5000);
    appendFileSync(file, 'ial\n');
    await eventually(() => out === 'before\nafter\npartial\n', 'the completed line', 5000);
    ac.abort();
    await reading;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
