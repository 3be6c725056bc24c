// The real entry point in a child process: first start makes the data directory, PKI and
// kubeconfig; /readyz turns 200; SIGTERM stops it with exit code 0; a later start reuses
// the PKI; a data directory of the other flavor is refused.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';

const entry = fileURLToPath(new URL('./apiserver.js', import.meta.url));
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'orch-cli-test-'));
  dirs.push(d);
  return d;
}

interface Started {
  child: ChildProcess;
  startLine: string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function start(args: string[]): Promise<Started> {
  const child = spawn(process.execPath, [entry, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no start line; stderr: ${err}`));
    }, 20_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve({ child, startLine: out.split('\n')[0]!, stderr: () => err, exit });
      }
    });
    void exit.then((code) => {
      clearTimeout(timer);
      if (!out.includes('\n')) resolve({ child, startLine: '', stderr: () => err, exit: Promise.resolve(code) });
    });
  });
}

interface Kubeconfig {
  clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
}

function get(kubeconfigPath: string, path: string): Promise<{ status: number; body: string }> {
  const kc = parse(readFileSync(kubeconfigPath, 'utf8')) as Kubeconfig;
  const b = (s: string): Buffer => Buffer.from(s, 'base64');
  const url = new URL(path, kc.clusters[0]!.cluster.server);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        ca: b(kc.clusters[0]!.cluster['certificate-authority-data']),
        cert: b(kc.users[0]!.user['client-certificate-data']),
        key: b(kc.users[0]!.user['client-key-data']),
        agent: false,
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function waitReady(kubeconfig: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const r = await get(kubeconfig, '/readyz').catch(() => undefined);
    if (r?.status === 200) return;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('never ready');
}

describe('orch-apiserver', () => {
  it('starts on sqlite, becomes ready, serves the admin kubeconfig, and exits 0 on SIGTERM', async () => {
    const dataDir = tempDir();
    const s = await start(['--data-dir', dataDir, '--secure-port', '0']);
    assert.match(s.startLine, /admin kubeconfig: .*admin\.kubeconfig; try: kubectl --kubeconfig .*admin\.kubeconfig get namespaces$/, s.stderr());
    const kubeconfig = join(dataDir, 'admin.kubeconfig');
    await waitReady(kubeconfig);
    const ns = await get(kubeconfig, '/api/v1/namespaces/default');
    assert.equal(ns.status, 200, ns.body);
    const version = JSON.parse((await get(kubeconfig, '/version')).body) as { gitVersion: string };
    assert.equal(version.gitVersion, 'v1.27.16-orch.0.1.0');
    const caBefore = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
    s.child.kill('SIGTERM');
    assert.equal(await s.exit, 0, s.stderr());

    // A second start reuses the CA, and its caches hold what the store holds.
    const again = await start(['--data-dir', dataDir, '--secure-port', '0']);
    await waitReady(kubeconfig);
    assert.equal(readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8'), caBefore);
    const list = JSON.parse((await get(kubeconfig, '/api/v1/namespaces?resourceVersion=0')).body) as { items: { metadata: { name: string } }[] };
    assert.deepEqual(list.items.map((n) => n.metadata.name).sort(), ['default', 'orch-node-lease', 'orch-public', 'orch-system']);
    again.child.kill('SIGINT');
    assert.equal(await again.exit, 0, again.stderr());

    // A refused start of an existing data directory leaves its store free for the next one.
    const refused = await start(['--data-dir', dataDir, '--secure-port', '0', '--max-object-size-bytes', '0']);
    assert.equal(await refused.exit, 1);
    assert.match(refused.stderr(), /--max-object-size-bytes: must be a positive number of bytes, not 0/);
    const third = await start(['--data-dir', dataDir, '--secure-port', '0']);
    await waitReady(kubeconfig);
    third.child.kill('SIGTERM');
    assert.equal(await third.exit, 0, third.stderr());
  });

  it('refuses a data directory of the other flavor with a clear message', async () => {
    const dataDir = tempDir();
    const first = await start(['--data-dir', dataDir, '--secure-port', '0', '--storage-backend', 'memory']);
    first.child.kill('SIGTERM');
    assert.equal(await first.exit, 0);
    const other = await start(['--data-dir', dataDir, '--secure-port', '0', '--compat', 'kubernetes']);
    assert.equal(await other.exit, 1);
    assert.match(other.stderr(), /was created with --compat orch and cannot be served with --compat kubernetes/);
  });

  it('refuses a stored-object size limit that is not a positive number of bytes', async () => {
    const s = await start(['--data-dir', tempDir(), '--secure-port', '0', '--storage-backend', 'memory', '--max-object-size-bytes', '0']);
    assert.equal(await s.exit, 1);
    assert.match(s.stderr(), /--max-object-size-bytes: must be a positive number of bytes, not 0/);
  });

  it('refuses an unknown storage backend, naming the known ones', async () => {
    const s = await start(['--data-dir', tempDir(), '--secure-port', '0', '--storage-backend', 'redis']);
    assert.equal(await s.exit, 1);
    assert.match(s.stderr(), /--storage-backend: must be memory, sqlite or etcd, not "redis"/);
  });

  it('rejects unknown flags with exit code 2', async () => {
    const s = await start(['--no-such-flag']);
    assert.equal(await s.exit, 2);
    assert.match(s.stderr(), /unknown flag: --no-such-flag/);
  });
});

describe('the flags the store opens by before the flags are parsed', () => {
  it('reads --name=value and --name value, the last one winning, and nothing else', async () => {
    const { rawFlag } = await import('./early-start.js');
    assert.equal(rawFlag(['--data-dir', '/a', '--console=false'], 'data-dir'), '/a');
    assert.equal(rawFlag(['--data-dir=/a', '-data-dir', '/b'], 'data-dir'), '/b');
    assert.equal(rawFlag(['--data-dir-other=/a', '--compat=kubernetes'], 'data-dir'), undefined);
    assert.equal(rawFlag(['--data-dir'], 'data-dir'), undefined);
    assert.equal(rawFlag(['--compat=kubernetes'], 'compat'), 'kubernetes');
  });

  it('a start whose parsed flags name another data directory than the lookup found serves its own, and frees the other', async () => {
    const guessed = tempDir();
    const first = await start(['--data-dir', guessed, '--secure-port', '0']);
    await waitReady(join(guessed, 'admin.kubeconfig'));
    first.child.kill('SIGTERM');
    assert.equal(await first.exit, 0, first.stderr());
    // To the parser `--data-dir=<guessed>` is the value of --etcd-prefix (unused with sqlite); the lookup takes it for the flag.
    const real = tempDir();
    const s = await start(['--data-dir', real, '--secure-port', '0', '--etcd-prefix', `--data-dir=${guessed}`]);
    await waitReady(join(real, 'admin.kubeconfig'));
    // The guessed directory's store was closed: another server can take it.
    const other = await start(['--data-dir', guessed, '--secure-port', '0']);
    await waitReady(join(guessed, 'admin.kubeconfig'));
    for (const p of [s, other]) {
      p.child.kill('SIGTERM');
      assert.equal(await p.exit, 0, p.stderr());
    }
  });
});
