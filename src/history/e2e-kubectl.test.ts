// The object history through stock kubectl (kubernetes flavor): `kubectl get revisions` with a
// field selector prints the contract's columns, and `kubectl get --raw` answers the list.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { renderKubeconfig } from '../client/kubeconfig.js';
import { startAuthTestServer, type AuthTestServer } from '../testing/server.js';

const KUBECTL = (process.env['PATH'] ?? '')
  .split(delimiter)
  .filter(Boolean)
  .map((d) => join(d, 'kubectl'))
  .find((p) => existsSync(p));

describe('kubectl get revisions', { skip: KUBECTL ? false : 'kubectl is not installed' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-history-kubectl-'));
  let s: AuthTestServer;
  let config = '';
  const kubectl = (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(KUBECTL!, [`--kubeconfig=${config}`, `--cache-dir=${join(dir, 'cache')}`, ...args], { timeout: 30_000, env: { ...process.env, HOME: dir } }, (err, stdout, stderr) => {
        resolve({ code: err ? 1 : 0, stdout, stderr });
      });
    });

  before(async () => {
    s = await startAuthTestServer(['--compat=kubernetes']);
    config = join(dir, 'admin.kubeconfig');
    writeFileSync(config, renderKubeconfig({ server: s.url, caPem: s.serverCA, clientCertPem: s.admin.cert!.certPem, clientKeyPem: s.admin.cert!.keyPem, user: 'admin', cluster: 'kubernetes' }));
  });
  after(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows REVISION, TIME, USER, MANAGER and OPERATION of a ConfigMap kubectl wrote', async () => {
    assert.equal((await kubectl('create', 'configmap', 'x', '--from-literal=a=1')).code, 0);
    const label = await kubectl('label', 'configmap', 'x', 'tier=web');
    assert.equal(label.code, 0, label.stderr);
    const out = await kubectl('get', 'revisions', '-n', 'default', '--field-selector', 'target.resource=configmaps,target.name=x');
    assert.equal(out.code, 0, out.stderr);
    const lines = out.stdout.trim().split('\n');
    assert.deepEqual(lines[0]!.split(/\s{2,}/), ['NAME', 'REVISION', 'TIME', 'USER', 'MANAGER', 'OPERATION']);
    const rows = lines.slice(1).map((l) => l.split(/\s{2,}/));
    // TIME prints as an age, as kubectl prints columns of type date.
    for (const r of rows) assert.match(r[2]!, /^\d+(s|m|h|d)/, r.join('|'));
    assert.deepEqual(rows.map((r) => [r[0], r[1], r[3], r[4], r[5]]), [
      ['x', '1', 'test-admin', 'kubectl-create', 'Create'],
      ['x', '2', 'test-admin', 'kubectl-label', 'Patch'],
    ]);
    // The short name and the raw list work too.
    assert.equal((await kubectl('get', 'rev', '--field-selector', 'target.resource=configmaps,target.name=x')).code, 0);
    const raw = await kubectl('get', '--raw', '/apis/history.orch.io/v1/namespaces/default/revisions?fieldSelector=target.resource%3Dconfigmaps%2Ctarget.name%3Dx');
    assert.equal(raw.code, 0, raw.stderr);
    const list = JSON.parse(raw.stdout) as { kind: string; items: { operation: string }[] };
    assert.equal(list.kind, 'RevisionList');
    assert.deepEqual(list.items.map((i) => i.operation), ['Create', 'Patch']);
    // Without the target, kubectl shows the server's message.
    const missing = await kubectl('get', 'revisions');
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /target\.resource is required/);
  });
});
