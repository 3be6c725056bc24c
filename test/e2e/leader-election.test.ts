// Black-box: two server binaries on one etcd. Exactly one holds the Lease
// `kube-controller-manager` in the system namespace and runs the controllers; killed with
// SIGKILL (no release of the lease), the other takes over once the lease has run out, and its
// controllers act.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { KubeObject } from '../../src/apimachinery/types.js';
import { etcdSkip, startEtcd, type EtcdServer } from '../../src/testing/etcd.js';
import { eventually, serverUnavailable, startTestServer, type TestServer } from './harness.js';

const skip = serverUnavailable() ?? etcdSkip();

const LEASE = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager';
const LEASE_DURATION_MS = 3000;

interface Lease {
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; leaseTransitions?: number; renewTime?: string };
}

/** The pid of the server process started with `dataDir` (its command line names that directory). */
function serverPid(dataDir: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmdline.split('\0').includes(dataDir)) return Number(entry);
  }
  throw new Error(`no process serves ${dataDir}`);
}

async function get(server: TestServer, path: string): Promise<{ status: number; body: KubeObject }> {
  const res = await server.client.request('GET', path);
  return { status: res.statusCode, body: JSON.parse(res.body.toString()) as KubeObject };
}

async function lease(server: TestServer): Promise<Lease | undefined> {
  const res = await get(server, LEASE);
  return res.status === 200 ? (res.body as Lease) : undefined;
}

/** A ConfigMap whose owner never existed: only a running garbage collector deletes it. */
async function danglingDependent(server: TestServer, name: string): Promise<void> {
  const body = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'never', uid: '0f8e1c52-0000-4000-8000-00000000beef' }] },
  };
  const res = await server.client.request('POST', '/api/v1/namespaces/default/configmaps', body);
  assert.equal(res.statusCode, 201, res.body.toString());
}

async function collected(server: TestServer, name: string): Promise<true | undefined> {
  return (await get(server, `/api/v1/namespaces/default/configmaps/${name}`)).status === 404 || undefined;
}

describe('leader election between two servers on one etcd', { skip }, () => {
  let etcd: EtcdServer;
  const servers: TestServer[] = [];

  before(async () => {
    etcd = await startEtcd();
    const args = [
      '--storage-backend', 'etcd',
      '--etcd-servers', etcd.clientUrl,
      '--etcd-prefix', '/leader-election-test',
      '--leader-elect-lease-duration', `${LEASE_DURATION_MS}ms`,
      '--leader-elect-renew-deadline', '2s',
      '--leader-elect-retry-period', '250ms',
    ];
    servers.push(await startTestServer({ flavor: 'kubernetes', args }));
    servers.push(await startTestServer({ flavor: 'kubernetes', args }));
  });

  after(async () => {
    for (const s of servers) await s.stop();
    await etcd?.stop();
  });

  test('one leads and collects garbage; killed, the other takes over after the lease duration', async () => {
    const [a, b] = servers as [TestServer, TestServer];
    const first = await eventually(async () => (await lease(a))?.spec?.holderIdentity || undefined, 'a holder of the lease');
    const leaderIndex = await eventually(() => {
      const leading = servers.map((s) => s.output().includes(`${first} became leader`));
      return leading.filter(Boolean).length === 1 ? leading.indexOf(true) : undefined;
    }, 'the leader saying so');
    const leader = servers[leaderIndex]!;
    const follower = servers[1 - leaderIndex]!;
    // The scheduler campaigns on its own Lease and may lead from either server: only the controller manager's counts here.
    assert.doesNotMatch(follower.output(), /controller-manager: \S+ became leader/, 'only one leads');
    assert.equal((await lease(b))?.spec?.holderIdentity, first, 'both servers see one lease');
    assert.equal((await lease(a))?.spec?.leaseDurationSeconds, LEASE_DURATION_MS / 1000);

    // Its controllers act, whichever server is asked.
    await danglingDependent(follower, 'before-kill');
    await eventually(() => collected(follower, 'before-kill'), 'the garbage collector of the leader acting');

    const transitions = (await lease(follower))?.spec?.leaseTransitions ?? 0;
    process.kill(serverPid(leader.dataDir), 'SIGKILL');
    const killedAt = Date.now();

    const next = await eventually(async () => {
      const holder = (await lease(follower))?.spec?.holderIdentity;
      return holder && holder !== first ? holder : undefined;
    }, 'another holder', 20_000);
    const tookMs = Date.now() - killedAt;
    // The survivor waits out the lease it last saw renewed (renewals every retry period at most).
    assert.ok(tookMs >= LEASE_DURATION_MS - 1000, `took over after ${tookMs} ms`);
    // The survivor logs its win once its write of the lease is acknowledged, which the read
    // above may see first.
    await eventually(() => follower.output().includes(`${next} became leader`) || undefined, 'the new leader saying so');
    assert.equal((await lease(follower))?.spec?.leaseTransitions, transitions + 1);

    await danglingDependent(follower, 'after-kill');
    await eventually(() => collected(follower, 'after-kill'), 'the garbage collector of the new leader acting');
  });
});
