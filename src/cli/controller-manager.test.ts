// The controller manager out of process: over HTTPS from a kubeconfig against a test server,
// with discovery from its endpoints; the real binary with a built-in controller; refusals.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { stringify } from 'yaml';
import { parseFlags } from '../apimachinery/flags.js';
import type { KubeObject } from '../apimachinery/types.js';
import { renderKubeconfig } from '../client/kubeconfig.js';
import type { ControllerDescriptor } from '../controllers/index.js';
import { startTestServer, type TestServer } from '../testing/api-server.js';
import { startAuthTestServer, type AuthTestServer } from '../testing/server.js';
import { eventually } from '../testing/wait.js';
import { setFlavor } from '../naming/index.js';
import { controllerManagerFlagDefinitions, startControllerManager } from './controller-manager-app.js';

const entry = fileURLToPath(new URL('./controller-manager.js', import.meta.url));
const CM = { group: '', version: 'v1', resource: 'configmaps' };
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function kubeconfigFor(server: TestServer): string {
  const dir = mkdtempSync(join(tmpdir(), 'orch-kcm-test-'));
  dirs.push(dir);
  const file = join(dir, 'kubeconfig');
  writeFileSync(
    file,
    renderKubeconfig({
      server: `https://127.0.0.1:${server.port}`,
      caPem: server.caPem,
      clientCertPem: server.admin.cert,
      clientKeyPem: server.admin.key,
      user: 'admin',
      cluster: 'test',
    }),
  );
  return file;
}

/** Answers each ConfigMap `ping` with a `pong` saying what discovery found. */
const pinger: ControllerDescriptor = {
  name: 'ttl',
  async start(ctx) {
    const resources = await ctx.discover();
    const informer = ctx.informers.informerFor(CM);
    const remove = informer.addEventHandler({
      onAdd: (obj: KubeObject) => {
        if (obj.metadata?.name !== 'ping') return;
        const found = resources.filter((r) => r.resource === 'configmaps' || r.resource === 'namespaces').map((r) => `${r.resource}:${r.namespaced}`);
        ctx.client
          .create(CM, obj.metadata.namespace ?? '', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pong' }, data: { found: found.sort().join(',') } })
          .catch(ctx.onError);
      },
    });
    return {
      async stop() {
        remove();
      },
      idle: () => true,
    };
  },
};

test('a descriptor runs out of process over the kubeconfig, with discovery from the server', async () => {
  const server = await startTestServer();
  const flags = parseFlags(['--kubeconfig', kubeconfigFor(server), '--leader-elect=false', '--controllers=ttl'], controllerManagerFlagDefinitions);
  const running = await startControllerManager(flags, { descriptors: [pinger, { ...pinger, name: 'cronjob' }] });
  try {
    assert.deepEqual(running.manager.selectedControllers(), ['ttl']);
    await running.manager.waitForStart();
    assert.deepEqual(running.manager.runningControllers(), ['ttl']);
    const res = await server.request('POST', '/api/v1/namespaces/team/configmaps', { body: { metadata: { name: 'ping' } } });
    assert.equal(res.status, 201, res.body);
    const pong = await eventually(async () => {
      const r = await server.request('GET', '/api/v1/namespaces/team/configmaps/pong');
      return r.status === 200 ? r.json() : undefined;
    }, 'the pong ConfigMap');
    assert.deepEqual(pong.data, { found: 'configmaps:true,namespaces:false' });
    assert.ok(running.manager.idle());
  } finally {
    await running.stop();
    await server.close();
  }
});

function run(args: string[]): { exit: Promise<number | null>; stderr: () => string; kill(): void } {
  const child = spawn(process.execPath, [entry, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  return { exit: new Promise((resolve) => child.on('exit', (code) => resolve(code))), stderr: () => err, kill: () => child.kill('SIGTERM') };
}

test('orch-controller-manager refuses unknown controllers and a missing kubeconfig', async () => {
  const bogus = run(['--controllers=*,bogus']);
  assert.equal(await bogus.exit, 1);
  assert.match(bogus.stderr(), /--controllers: "bogus" is not in the list of known controllers/);
  const none = run([]);
  assert.equal(await none.exit, 1);
  assert.match(none.stderr(), /--kubeconfig is required/);
});

test('orch-controller-manager runs a built-in controller against the server and stops on SIGTERM', async () => {
  const server = await startTestServer();
  const proc = run(['--kubeconfig', kubeconfigFor(server), '--leader-elect=false', '--controllers=root-ca-cert-publisher']);
  try {
    assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'team' } } })).status, 201);
    const cm = await eventually(async () => {
      const r = await server.request('GET', '/api/v1/namespaces/team/configmaps/orch-root-ca.crt');
      return r.status === 200 ? r.json() : undefined;
    }, `the root CA ConfigMap (stderr: ${proc.stderr()})`);
    assert.deepEqual(cm.data, { 'ca.crt': server.caPem });
    proc.kill();
    assert.equal(await proc.exit, 0, proc.stderr());
  } finally {
    proc.kill();
    await server.close();
  }
});

function kubeconfigForServer(s: AuthTestServer): string {
  const dir = mkdtempSync(join(tmpdir(), 'orch-kcm-test-'));
  dirs.push(dir);
  const file = join(dir, 'kubeconfig');
  writeFileSync(
    file,
    renderKubeconfig({ server: s.url, caPem: s.serverCA, clientCertPem: s.admin.cert?.certPem ?? '', clientKeyPem: s.admin.cert?.keyPem ?? '', user: 'admin', cluster: 'test' }),
  );
  return file;
}

interface LeaseView {
  holderIdentity?: string;
  renewTime?: string;
  leaseDurationSeconds?: number;
}

test('orch-controller-manager with its default --leader-elect campaigns on the Lease, stays up renewing it, a second instance waits, and losing it exits 1', async () => {
  const server = await startAuthTestServer();
  const leasePath = '/apis/coordination.orch.io/v1/namespaces/orch-system/leases/kube-controller-manager';
  const readLease = async (): Promise<(KubeObject & { spec?: LeaseView }) | undefined> => {
    const r = await server.request('GET', leasePath, server.admin);
    return r.status === 200 ? (r.json as KubeObject & { spec?: LeaseView }) : undefined;
  };
  // kube's defaults are 15s/10s/2s; shorter ones keep the test short (same rules).
  const args = ['--kubeconfig', kubeconfigForServer(server), '--controllers=root-ca-cert-publisher', '--leader-elect-lease-duration=3s', '--leader-elect-renew-deadline=2s', '--leader-elect-retry-period=300ms'];
  const first = run(args);
  let firstExit: number | null | undefined;
  void first.exit.then((code) => (firstExit = code));
  let second: ReturnType<typeof run> | undefined;
  try {
    const held = await eventually(async () => {
      const lease = await readLease();
      return lease?.spec?.holderIdentity ? lease : undefined;
    }, `the Lease (stderr: ${first.stderr()})`);
    const holder = held.spec?.holderIdentity ?? '';
    assert.match(holder, /^[^_]+_[0-9a-f-]{36}$/, 'holderIdentity is <hostname>_<uuid>');
    assert.equal(held.spec?.leaseDurationSeconds, 3);
    // Renewed while it runs, by the same holder.
    await eventually(async () => {
      const lease = await readLease();
      return lease?.spec?.renewTime !== held.spec?.renewTime && lease?.spec?.holderIdentity === holder ? true : undefined;
    }, 'a renewal');
    assert.equal(firstExit, undefined, `the leader is still running (stderr: ${first.stderr()})`);

    second = run(args);
    const waiting = second;
    await eventually(async () => (waiting.stderr().includes(`new leader elected: ${holder}`) ? true : undefined), `the second instance to see the leader (stderr: ${waiting.stderr()})`);
    // Two renew periods later the first still holds the Lease and the second still waits.
    const renewed = (await readLease())?.spec?.renewTime;
    await eventually(async () => ((await readLease())?.spec?.renewTime !== renewed ? true : undefined), 'another renewal');
    assert.equal((await readLease())?.spec?.holderIdentity, holder);
    assert.doesNotMatch(waiting.stderr(), /became leader/);

    // SIGTERM releases the Lease; the second takes it at once.
    first.kill();
    assert.equal(await first.exit, 0, first.stderr());
    const taken = await eventually(async () => {
      const lease = await readLease();
      const h = lease?.spec?.holderIdentity;
      return h && h !== holder ? lease : undefined;
    }, `the second instance to take the Lease (stderr: ${waiting.stderr()})`);

    // Another holder overwrites the Lease: the leader cannot renew within its deadline and exits 1.
    const stolen = { ...taken, spec: { ...taken.spec, holderIdentity: 'another-manager', renewTime: new Date().toISOString().replace('Z', '000Z'), leaseDurationSeconds: 60 } };
    const put = await server.request('PUT', leasePath, server.admin, stolen);
    assert.equal(put.status, 200, put.text);
    assert.equal(await waiting.exit, 1, waiting.stderr());
    assert.match(waiting.stderr(), /leaderelection lost/);
  } finally {
    first.kill();
    second?.kill();
    await server.stop();
  }
});

test('orch-controller-manager in the kubernetes flavor authenticates with a stock credential plugin (v1, v1beta1)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-kcm-exec-'));
  dirs.push(dir);
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, 'plugin-token,plugin-user,plugin-uid,system:masters\n');
  // The plugin answers only in the stock protocol: its ExecCredential in KUBERNETES_EXEC_INFO, the same apiVersion back.
  const plugin = join(dir, 'plugin.mjs');
  writeFileSync(
    plugin,
    [
      "const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO ?? 'null');",
      "if (!info || !String(info.apiVersion).startsWith('client.authentication.k8s.io/')) { process.stderr.write('no stock ExecCredential'); process.exit(1); }",
      "process.stdout.write(JSON.stringify({ apiVersion: info.apiVersion, kind: 'ExecCredential', status: { token: 'plugin-token' } }));",
    ].join('\n'),
  );
  // The server's own manager leaves the root CA ConfigMaps to the one under test.
  const s = await startAuthTestServer(['--compat=kubernetes', `--token-auth-file=${tokenFile}`, '--controllers=*,-root-ca-cert-publisher']);
  try {
    const kubeconfig = (version: string): string => {
      const file = join(dir, `kubeconfig-${version}`);
      writeFileSync(
        file,
        stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [{ name: 'c', cluster: { server: s.url, 'certificate-authority-data': Buffer.from(s.serverCA).toString('base64') } }],
          users: [{ name: 'u', user: { exec: { apiVersion: `client.authentication.k8s.io/${version}`, command: process.execPath, args: [plugin], interactiveMode: 'Never' } } }],
          contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
          'current-context': 'x',
        }),
      );
      return file;
    };
    // With --compat, and without it (the plugin's protocol names the flavor).
    for (const [version, compat] of [['v1', ['--compat=kubernetes']], ['v1beta1', []]] as const) {
      const ns = `team-${version}`;
      const proc = run(['--kubeconfig', kubeconfig(version), ...compat, '--leader-elect=false', '--controllers=root-ca-cert-publisher']);
      try {
        assert.equal((await s.request('POST', '/api/v1/namespaces', s.admin, { metadata: { name: ns } })).status, 201);
        await eventually(async () => (await s.request('GET', `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`, s.admin)).status === 200, `the root CA ConfigMap (stderr: ${proc.stderr()})`);
        proc.kill();
        assert.equal(await proc.exit, 0, proc.stderr());
      } finally {
        proc.kill();
      }
    }
  } finally {
    await s.stop();
    setFlavor('orch');
  }
});
