// `kubectl auth whoami` and `kubectl auth can-i` against the server in the kubernetes flavor,
// as stock kubectl uses them (reviews, impersonation, forbidden messages).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { renderKubeconfig } from '../client/kubeconfig.js';
import { startAuthTestServer, type AuthTestServer, type Identity } from '../testing/server.js';
import { eventually } from '../testing/wait.js';

const KUBECTL = (process.env['PATH'] ?? '')
  .split(delimiter)
  .filter(Boolean)
  .map((d) => join(d, 'kubectl'))
  .find((p) => existsSync(p));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('kubectl auth (kubernetes flavor)', { skip: KUBECTL ? false : 'kubectl is not installed' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-auth-kubectl-'));
  let s: AuthTestServer;
  const configs: Record<string, string> = {};

  const kubectl = (as: string, ...args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(KUBECTL!, [`--kubeconfig=${configs[as]}`, `--cache-dir=${join(dir, 'cache')}`, ...args], { timeout: 30_000, env: { ...process.env, HOME: dir } }, (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
        resolve({ code, stdout, stderr });
      });
    });

  const kubeconfigFor = (name: string, id: Identity) => {
    const path = join(dir, `${name}.kubeconfig`);
    writeFileSync(path, renderKubeconfig({ server: s.url, caPem: s.serverCA, clientCertPem: id.cert!.certPem, clientKeyPem: id.cert!.keyPem, user: name, cluster: 'kubernetes' }));
    configs[name] = path;
  };

  before(async () => {
    // SelfSubjectReview is a beta API in 1.27, off unless --runtime-config serves it.
    s = await startAuthTestServer(['--compat=kubernetes', '--runtime-config=authentication.k8s.io/v1beta1=true']);
    kubeconfigFor('admin', s.admin);
    kubeconfigFor('bob', await s.user('bob', 'team-b'));
    for (const ns of ['dev', 'prod']) assert.equal((await kubectl('admin', 'create', 'namespace', ns)).code, 0);
    const rbac = 'rbac.authorization.k8s.io';
    const bind = await s.request('POST', `/apis/${rbac}/v1/namespaces/dev/rolebindings`, s.admin, {
      apiVersion: `${rbac}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'bob-view' },
      roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', apiGroup: rbac, name: 'bob' }],
    });
    assert.equal(bind.status, 201, bind.text);
    await eventually(async () => (await kubectl('bob', 'auth', 'can-i', 'list', 'pods', '-n', 'dev')).stdout.trim() === 'yes', 'the binding', 10_000);
  });

  after(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kubectl auth whoami shows the user and its groups', async () => {
    const r = await kubectl('bob', 'auth', 'whoami', '-o', 'json');
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { apiVersion: string; kind: string; status: { userInfo: unknown } };
    assert.equal(doc.kind, 'SelfSubjectReview');
    // 1.27 serves it in v1beta1 (v1 is 1.28's): kubectl finds it there.
    assert.equal(doc.apiVersion, 'authentication.k8s.io/v1beta1');
    assert.deepEqual(doc.status.userInfo, { username: 'bob', groups: ['team-b', 'system:authenticated'] });
    const table = await kubectl('admin', 'auth', 'whoami');
    assert.match(table.stdout, /Username\s+test-admin/);
    assert.match(table.stdout, /Groups\s+\[system:masters system:authenticated\]/);
  });

  it('kubectl auth can-i answers yes and no as RBAC decides', async () => {
    const ask = async (...args: string[]) => (await kubectl('bob', 'auth', 'can-i', ...args)).stdout.trim();
    assert.equal(await ask('get', 'pods', '-n', 'dev'), 'yes');
    assert.equal(await ask('watch', 'deployments.apps', '-n', 'dev'), 'yes');
    assert.equal(await ask('delete', 'pods', '-n', 'dev'), 'no');
    assert.equal(await ask('get', 'secrets', '-n', 'dev'), 'no');
    assert.equal(await ask('list', 'pods', '-n', 'prod'), 'no');
    assert.equal(await ask('create', 'selfsubjectaccessreviews.authorization.k8s.io'), 'yes');
    const no = await kubectl('bob', 'auth', 'can-i', 'delete', 'pods', '-n', 'dev');
    assert.equal(no.code, 1);
  });

  it('kubectl auth can-i --as impersonates, and --list enumerates the rules', async () => {
    const as = await kubectl('admin', 'auth', 'can-i', 'get', 'pods', '-n', 'dev', '--as=bob');
    assert.equal(as.stdout.trim(), 'yes');
    const asNo = await kubectl('admin', 'auth', 'can-i', 'get', 'pods', '-n', 'prod', '--as=bob');
    assert.equal(asNo.stdout.trim(), 'no');
    const list = await kubectl('bob', 'auth', 'can-i', '--list', '-n', 'dev');
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^pods\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    assert.match(list.stdout, /selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/);
    const impersonationDenied = await kubectl('bob', 'get', 'pods', '-n', 'dev', '--as=admin');
    assert.notEqual(impersonationDenied.code, 0);
    assert.match(impersonationDenied.stderr, /users "admin" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope/);
  });

  it('kubectl shows the Kubernetes forbidden message', async () => {
    const r = await kubectl('bob', 'get', 'pods', '-n', 'prod');
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Error from server \(Forbidden\): pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "prod"/);
  });
});
