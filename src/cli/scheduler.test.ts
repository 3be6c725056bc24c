// orch-scheduler, the bundled program (dist/bundle/scheduler.js, as the package's bin runs
// it), against a server started without its own scheduler: a pending pod is bound; two
// instances elect one leader on the `kube-scheduler` Lease; bad flags are refused.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { HttpClient } from '../client/http.js';
import { readKubeconfig } from '../client/kubeconfig.js';
import { startApiServer, type ApiServerHandle } from '../lib/index.js';
import { eventually } from '../testing/wait.js';

const entry = fileURLToPath(new URL('../../bundle/scheduler.js', import.meta.url));
const PODS = { group: '', version: 'v1', resource: 'pods' };
const LEASES = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' };
const skip = existsSync(entry) ? undefined : 'dist/bundle/scheduler.js is not built (npm run build)';

interface Proc {
  exit: Promise<number | null>;
  stderr(): string;
  kill(): void;
}

function run(args: string[]): Proc {
  const child = spawn(process.execPath, [entry, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  return { exit: new Promise((resolve) => child.on('exit', (code) => resolve(code))), stderr: () => err, kill: () => child.kill('SIGTERM') };
}

describe('orch-scheduler', { skip }, () => {
  let server: ApiServerHandle;
  let client: HttpClient;
  before(async () => {
    server = await startApiServer({ simulatedNodes: 2, scheduler: false });
    client = new HttpClient(readKubeconfig(server.kubeconfigPath));
  });
  after(async () => {
    client?.close();
    await server?.stop();
  });

  const pod = (name: string): Promise<unknown> => client.create(PODS, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  const nodeOf = async (name: string): Promise<string> => ((await client.get(PODS, 'default', name)).spec as { nodeName?: string }).nodeName ?? '';

  it('refuses unknown flags and a missing kubeconfig', async () => {
    const unknown = run(['--kubeconfig', server.kubeconfigPath, '--no-such-flag']);
    assert.equal(await unknown.exit, 2);
    assert.match(unknown.stderr(), /no-such-flag/);
    const none = run([]);
    assert.equal(await none.exit, 1);
    assert.match(none.stderr(), /--kubeconfig is required/);
  });

  it('binds a pending pod; of two instances one leads on the kube-scheduler Lease', async () => {
    await pod('before');
    await server.settled();
    assert.equal(await nodeOf('before'), '', 'the server schedules nothing itself');
    const args = ['--kubeconfig', server.kubeconfigPath, '--leader-elect-lease-duration=3s', '--leader-elect-renew-deadline=2s', '--leader-elect-retry-period=300ms'];
    const first = run(args);
    let second: Proc | undefined;
    try {
      const node = await eventually(async () => (await nodeOf('before')) || undefined, `the pod bound (stderr: ${first.stderr()})`);
      assert.match(node, /^node-00000[01]$/);
      const lease = (await client.get(LEASES, 'kube-system', 'kube-scheduler')).spec as { holderIdentity?: string };
      assert.match(lease.holderIdentity ?? '', /^[^_]+_[0-9a-f-]{36}$/);
      second = run(args);
      const waiting = second;
      await eventually(async () => (waiting.stderr().includes(`new leader elected: ${lease.holderIdentity}`) ? true : undefined), 'the second instance to see the leader');
      await pod('after');
      await eventually(async () => (await nodeOf('after')) || undefined, 'the second pod bound');
      assert.doesNotMatch(waiting.stderr(), /became leader/);
      // The leader stops and releases the Lease: the other one takes over and schedules.
      first.kill();
      assert.equal(await first.exit, 0, first.stderr());
      await eventually(async () => {
        const l = (await client.get(LEASES, 'kube-system', 'kube-scheduler')).spec as { holderIdentity?: string };
        return l.holderIdentity && l.holderIdentity !== lease.holderIdentity ? true : undefined;
      }, `the second instance to lead (stderr: ${waiting.stderr()})`);
      await pod('last');
      await eventually(async () => (await nodeOf('last')) || undefined, 'the third pod bound by the new leader');
    } finally {
      first.kill();
      second?.kill();
      await Promise.all([first.exit, second?.exit]);
    }
  });
});
