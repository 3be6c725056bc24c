// The official Python client (Debian's python3-kubernetes) against a real server: the pytest
// suite in test/python drives it as Python operators and scripts do. Each pytest case is
// reported here as a test of its own, so the runner's totals count them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverUnavailable, startTestServer, type TestServer } from './harness.js';

/** The suite's sources (not compiled): `<repo>/test/python`, from `<repo>/dist/test/e2e`. */
const SUITE = fileURLToPath(new URL('../../../test/python', import.meta.url));
/** Debian's interpreter, where python3-kubernetes is installed (not a virtualenv's or pyenv's python3). */
const PYTHON = process.env.ORCH_TEST_PYTHON ?? '/usr/bin/python3';

function pythonUnavailable(): string | undefined {
  const probe = spawnSync(PYTHON, ['-c', 'import kubernetes, pytest, yaml'], { encoding: 'utf8' });
  if (probe.status === 0) return undefined;
  return `${PYTHON} with python3-kubernetes and python3-pytest is not installed (Debian: apt-get install python3-kubernetes python3-pytest)`;
}

interface Case {
  name: string;
  failure?: string;
  skipped?: string;
}

function unescapeXml(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&#10;/g, '\n').replace(/&amp;/g, '&');
}

/** The cases of pytest's JUnit XML report, in order. */
export function junitCases(xml: string): Case[] {
  const cases: Case[] = [];
  const re = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
  for (const m of xml.matchAll(re)) {
    const attrs = Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((a) => [a[1], unescapeXml(a[2])]));
    const body = m[3] ?? '';
    const failure = /<(failure|error)\b([^>]*)>([\s\S]*?)<\/\1>|<(failure|error)\b([^>]*)\/>/.exec(body);
    const skipped = /<skipped\b[^>]*message="([^"]*)"/.exec(body);
    const file = (attrs.classname ?? '').split('.').pop();
    cases.push({
      name: `${file}::${attrs.name}`,
      ...(failure ? { failure: unescapeXml(failure[3] ?? failure[5] ?? failure[2] ?? '') } : {}),
      ...(skipped ? { skipped: unescapeXml(skipped[1]) } : {}),
    });
  }
  return cases;
}

const unavailable = serverUnavailable() ?? pythonUnavailable();
// CI installs the client: there the suite must run, never skip.
if (unavailable && process.env.CI) throw new Error(`the Python client suite cannot run in CI: ${unavailable}`);

describe('the official Python client', { skip: unavailable }, () => {
  let server: TestServer;
  let compacting: TestServer;
  let dir: string;
  let cases: Case[] = [];
  let output = '';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-python-'));
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'py-admin-token,py-admin,1001,"system:masters"\npy-nobody-token,py-nobody,1002\n');
    [server, compacting] = await Promise.all([
      startTestServer({ flavor: 'kubernetes', args: ['--token-auth-file', tokens] }),
      startTestServer({ flavor: 'kubernetes', args: ['--watch-history-window', '1s', '--etcd-compaction-interval', '1s'] }),
    ]);
    const report = join(dir, 'report.xml');
    const child = spawn(PYTHON, ['-m', 'pytest', SUITE, '-q', '-p', 'no:cacheprovider', `--junitxml=${report}`, '-o', 'junit_family=xunit2'], {
      cwd: SUITE,
      env: {
        ...process.env,
        HOME: dir,
        PYTHONDONTWRITEBYTECODE: '1',
        ORCH_PY_KUBECONFIG: server.kubeconfigPath,
        ORCH_PY_COMPACTING_KUBECONFIG: compacting.kubeconfigPath,
        ORCH_PY_ADMIN_TOKEN: 'py-admin-token',
        ORCH_PY_NOBODY_TOKEN: 'py-nobody-token',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    // 0: all passed; 1: some failed (reported per case below); anything else: pytest itself failed.
    assert.ok(code === 0 || code === 1, `pytest exited with ${code}:\n${output}`);
    cases = junitCases(readFileSync(report, 'utf8'));
  });

  after(async () => {
    await Promise.all([server?.stop(), compacting?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('pytest ran the suite', () => {
    assert.ok(cases.length >= 20, `pytest reported ${cases.length} cases:\n${output}`);
  });

  test('every case', async (t) => {
    for (const c of cases) {
      await t.test(c.name, { skip: c.skipped ?? false }, () => {
        if (c.failure !== undefined) assert.fail(`${c.name} failed:\n${c.failure}`);
      });
    }
  });
});
