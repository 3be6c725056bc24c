// Simulated nodes in the whole server (the library's `startApiServer`, kubernetes flavor),
// driven as a user's test drives it: @kubernetes/client-node, a FakeClock, `settled()`.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { FakeClock, startApiServer, type ApiServerHandle } from '../lib/index.js';
import { parseFlags, usage } from '../apimachinery/flags.js';
import { allFlagDefinitions } from '../cli/flags.js';
import { startServer } from '../cli/server.js';
import { eventually } from '../testing/wait.js';
import { probeStore } from '../testing/memory-table.js';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'orch-simulated-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** A raw GET as the admin (for connect subresources), with its status code and body. */
function get(server: ApiServerHandle, path: string): Promise<{ code: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { ca: server.ca, cert: server.certPem, key: server.keyPem }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const pod = (name: string, extra: Partial<k8s.V1PodSpec> = {}, labels?: Record<string, string>): k8s.V1Pod => ({
  metadata: { name, ...(labels ? { labels } : {}) },
  spec: { nodeName: 'node-000000', containers: [{ name: 'app', image: 'nginx' }], ...extra },
});

describe('a server with simulatedNodes: 3', () => {
  let server: ApiServerHandle;
  let core: k8s.CoreV1Api;
  let clock: FakeClock;

  before(async () => {
    writeFileSync(join(dir, 'app.log'), '2024-01-01T00:00:01.000000000Z stdout F first line\n2024-01-01T00:00:02.000000000Z stderr F second line\nplain third line\n');
    clock = new FakeClock(Date.UTC(2024, 0, 1));
    server = await startApiServer({
      simulatedNodes: 3,
      clock,
      simulatedNodeConfig: [
        {
          apiVersion: 'kwok.x-k8s.io/v1alpha1',
          kind: 'ClusterLogs',
          metadata: { name: 'apps' },
          spec: { selector: { matchNamespaces: ['default'] }, logs: [{ containers: ['app'], logsFile: join(dir, 'app.log') }] },
        },
      ],
    });
    core = server.kubeConfig(k8s.KubeConfig).makeApiClient(k8s.CoreV1Api);
    await server.settled();
  });
  after(() => server?.stop());

  test('three Ready nodes, leases held by them and renewed every 10 s on the clock', async () => {
    const nodes = (await core.listNode()).items;
    assert.deepEqual(
      nodes.map((n) => n.metadata?.name),
      ['node-000000', 'node-000001', 'node-000002'],
    );
    for (const n of nodes) {
      assert.equal(n.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
      assert.equal(n.metadata?.annotations?.['kwok.x-k8s.io/node'], 'fake');
      assert.equal(n.status?.nodeInfo?.kubeletVersion, 'v1.27.16');
    }
    const coordination = server.kubeConfig(k8s.KubeConfig).makeApiClient(k8s.CoordinationV1Api);
    const leases = async (): Promise<k8s.V1Lease[]> => (await coordination.listNamespacedLease({ namespace: 'kube-node-lease' })).items;
    const before = await leases();
    assert.equal(before.length, 3);
    for (const l of before) {
      assert.equal(l.spec?.holderIdentity, l.metadata?.name);
      assert.equal(l.spec?.leaseDurationSeconds, 40);
      assert.equal(l.metadata?.ownerReferences?.[0]?.kind, 'Node');
    }
    clock.step(10_000);
    await server.settled();
    const renewed = await leases();
    for (const l of renewed) {
      const was = before.find((b) => b.metadata?.name === l.metadata?.name);
      assert.ok(new Date(l.spec!.renewTime!).getTime() > new Date(was!.spec!.renewTime!).getTime(), `${l.metadata?.name} renewed`);
    }
  });

  test('a pod with spec.nodeName reaches Running; graceful deletion completes', async () => {
    await core.createNamespacedPod({ namespace: 'default', body: pod('web') });
    await server.settled();
    const p = await core.readNamespacedPod({ name: 'web', namespace: 'default' });
    assert.equal(p.status?.phase, 'Running');
    assert.equal(p.status?.hostIP, '192.0.2.1');
    // The node IPAM controller gave the node a /24 of 10.128.0.0/9; the pod's address is in it.
    const podCIDR = (await core.readNode({ name: 'node-000000' })).spec?.podCIDR ?? '';
    assert.match(podCIDR, /^10\.(1[2-9]\d|2[0-5]\d)\.\d+\.0\/24$/);
    assert.equal(p.status?.podIP, podCIDR.replace(/0\/24$/, '1'));
    const c = p.status?.containerStatuses?.[0];
    assert.equal(c?.ready, true);
    assert.equal(c?.started, true);
    assert.ok(c?.state?.running?.startedAt);
    assert.match(c?.containerID ?? '', /^kwok:\/\//);
    assert.ok(c?.imageID);

    await core.deleteNamespacedPod({ name: 'web', namespace: 'default' });
    await server.settled();
    await assert.rejects(core.readNamespacedPod({ name: 'web', namespace: 'default' }), (e: unknown) => e instanceof k8s.ApiException && e.code === 404);
  });

  test('the scheduler, on with simulated nodes, places a pending pod that then reaches Running', async () => {
    await core.createNamespacedPod({ namespace: 'default', body: { metadata: { name: 'placed' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } });
    await server.settled();
    const p = await core.readNamespacedPod({ name: 'placed', namespace: 'default' });
    assert.match(p.spec?.nodeName ?? '', /^node-00000[0-2]$/);
    assert.equal(p.status?.phase, 'Running');
    assert.equal(p.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status, 'True');
  });

  test('a pod bound later by another scheduler (pods/binding) reaches Running', async () => {
    // Another scheduler's pod: the default one leaves it to the test.
    await core.createNamespacedPod({ namespace: 'default', body: { metadata: { name: 'unbound' }, spec: { schedulerName: 'by-hand', containers: [{ name: 'app', image: 'nginx' }] } } });
    await server.settled();
    assert.equal((await core.readNamespacedPod({ name: 'unbound', namespace: 'default' })).status?.phase, 'Pending');
    await core.createNamespacedBinding({ namespace: 'default', body: { metadata: { name: 'unbound' }, target: { kind: 'Node', name: 'node-000002' } } });
    await server.settled();
    const p = await core.readNamespacedPod({ name: 'unbound', namespace: 'default' });
    assert.equal(p.status?.phase, 'Running');
    assert.equal(p.status?.hostIP, '192.0.2.3');
  });

  test("a Job's pod ends Succeeded and the Job controller completes the Job", async () => {
    const batch = server.kubeConfig(k8s.KubeConfig).makeApiClient(k8s.BatchV1Api);
    await batch.createNamespacedJob({
      namespace: 'default',
      body: {
        metadata: { name: 'once' },
        spec: { template: { spec: { nodeName: 'node-000001', restartPolicy: 'Never', containers: [{ name: 'work', image: 'busybox' }] } } },
      },
    });
    await server.settled();
    clock.step(5_000);
    await server.settled();
    const job = await batch.readNamespacedJob({ name: 'once', namespace: 'default' });
    assert.equal(job.status?.succeeded, 1);
    assert.equal(job.status?.conditions?.find((c) => c.type === 'Complete')?.status, 'True');
  });

  test('logs answer from the configured file (options applied), or empty; exec is refused clearly', async () => {
    await core.createNamespacedPod({ namespace: 'default', body: pod('logger', { containers: [{ name: 'app', image: 'x' }, { name: 'quiet', image: 'y' }] }) });
    await server.settled();
    const log = await get(server, '/api/v1/namespaces/default/pods/logger/log?container=app');
    assert.deepEqual([log.code, log.body], [200, 'first line\nsecond line\nplain third line\n']);
    const tail = await get(server, '/api/v1/namespaces/default/pods/logger/log?container=app&tailLines=2&timestamps=true');
    assert.equal(tail.body, '2024-01-01T00:00:02.000000000Z second line\nplain third line\n');
    const limited = await get(server, '/api/v1/namespaces/default/pods/logger/log?container=app&limitBytes=5');
    assert.equal(limited.body, 'first');
    const quiet = await get(server, '/api/v1/namespaces/default/pods/logger/log?container=quiet');
    assert.deepEqual([quiet.code, quiet.body], [200, '']);
    const exec = await get(server, '/api/v1/namespaces/default/pods/logger/exec?container=app&command=ls&stdout=true');
    assert.equal(exec.code, 400);
    assert.match(exec.body, /pod logger runs on the simulated node node-000000, which has no containers to exec/);
    const pf = await get(server, '/api/v1/namespaces/default/pods/logger/portforward?ports=80');
    assert.match(pf.body, /no containers to forward ports of/);
  });

  test('logs with follow=true stream what is appended until the client leaves', async () => {
    let body = '';
    const req = request(`${server.url}/api/v1/namespaces/default/pods/logger/log?container=app&follow=true&tailLines=1`, { ca: server.ca, cert: server.certPem, key: server.keyPem }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('error', () => {});
    });
    req.on('error', () => {});
    req.end();
    try {
      await eventually(() => body === 'plain third line\n', 'the last line');
      appendFileSync(join(dir, 'app.log'), '2024-01-01T00:00:03.000000000Z stdout F fourth line\n');
      await eventually(() => body === 'plain third line\nfourth line\n', 'the appended line');
    } finally {
      req.destroy();
    }
  });

  test('a user stage makes pods fail, configured through the library option', async () => {
    const s = await startApiServer({
      simulatedNodes: 1,
      simulatedNodeConfig: [
        {
          apiVersion: 'kwok.x-k8s.io/v1alpha1',
          kind: 'Stage',
          metadata: { name: 'pod-fail' },
          spec: {
            resourceRef: { apiGroup: 'v1', kind: 'Pod' },
            selector: { matchExpressions: [{ key: '.status.phase', operator: 'In', values: ['Pending'] }] },
            next: { statusTemplate: 'phase: Failed\nreason: Simulated\nmessage: {{ printf "failed on %s" .spec.nodeName | Quote }}\n' },
          },
        },
      ],
    });
    try {
      const c = s.kubeConfig(k8s.KubeConfig).makeApiClient(k8s.CoreV1Api);
      await c.createNamespacedPod({ namespace: 'default', body: pod('doomed') });
      await s.settled();
      const p = await c.readNamespacedPod({ name: 'doomed', namespace: 'default' });
      assert.deepEqual([p.status?.phase, p.status?.reason, p.status?.message], ['Failed', 'Simulated', 'failed on node-000000']);
    } finally {
      await s.stop();
    }
  });
});

describe('the options are checked before anything starts', () => {
  test('bad simulated node options name themselves', async () => {
    await assert.rejects(startApiServer({ simulatedNodes: -1 }), /option "simulatedNodes" must be a number of nodes/);
    await assert.rejects(startApiServer({ simulatedNodes: 1.5 }), /option "simulatedNodes"/);
    await assert.rejects(startApiServer({ simulatedNodeConfig: [7] as never }), /option "simulatedNodeConfig" must be an array/);
    await assert.rejects(
      startApiServer({ simulatedNodeConfig: [{ apiVersion: 'kwok.x-k8s.io/v1alpha1', kind: 'Stage', metadata: { name: 's' }, spec: { resourceRef: { kind: 'Pod' }, selector: {}, next: { statusTemplate: '{{ env "HOME" }}' } } }] }),
      /option "simulatedNodeConfig": option "simulatedNodeConfig" item 0: document 1: Stage "s": spec\.next\.statusTemplate: line 1: function "env" is not supported/,
    );
    const missing = join(dir, 'missing.yaml');
    await assert.rejects(startApiServer({ simulatedNodeConfig: [missing] }), (e: Error) => e.message.includes(`cannot read ${missing}`));
  });
});

describe('the flags', () => {
  const start = (...extra: string[]): Promise<unknown> =>
    startServer(parseFlags([`--data-dir=${join(dir, 'data')}`, '--storage-backend=memory', '--secure-port=0', '--compat=kubernetes', '--console=false', ...extra], allFlagDefinitions), { log: () => {} });

  test('--help describes them', () => {
    const text = usage(allFlagDefinitions);
    assert.match(text, /--simulated-nodes/);
    assert.match(text, /--simulated-node-config/);
    assert.match(text, /kwok\.x-k8s\.io\/node=fake/);
  });

  test('a bad count or configuration refuses the start, naming the flag, the file and the stage', async () => {
    await assert.rejects(start('--simulated-nodes=-1'), /--simulated-nodes: must be a number of nodes from 0 to 100000, not -1/);
    const missing = join(dir, 'none.yaml');
    await assert.rejects(start(`--simulated-node-config=${missing}`), (e: Error) => e.message.startsWith(`--simulated-node-config: ${missing}: cannot read`));
    const bad = join(dir, 'bad-stage.yaml');
    writeFileSync(bad, 'apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata: {name: nope}\nspec:\n  resourceRef: {kind: Pod}\n  selector: {}\n  next: {statusTemplate: "{{ include . }}"}\n');
    await assert.rejects(start(`--simulated-node-config=${bad}`), (e: Error) => e.message === `--simulated-node-config: ${bad}: document 1: Stage "nope": spec.next.statusTemplate: line 1: function "include" is not supported`);
  });
});

describe('the cluster half of one server process', () => {
  test('controllers, scheduler, node agent and the Node authorizer share one pods watch and one nodes watch', async () => {
    const flags = parseFlags(
      [`--data-dir=${join(dir, 'shared')}`, '--storage-backend=memory', '--secure-port=0', '--console=false', '--simulated-nodes=2', '--authorization-mode=Node,RBAC'],
      allFlagDefinitions,
    );
    const running = await startServer(flags, { log: () => {} });
    try {
      // Installed before the start-up hooks reach auth and the controllers (they wait on storage first).
      const PODS = { group: '', version: 'v1', resource: 'pods' };
      const pods = probeStore(running.table, PODS);
      const nodes = probeStore(running.table, { group: '', version: 'v1', resource: 'nodes' });
      await running.started;
      await running.client.create(PODS, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
      // Scheduled by the scheduler, run by the node agent, seen by the controllers: all from one watch.
      await eventually(async () => ((await running.client.get(PODS, 'default', 'p')).status as { phase?: string } | undefined)?.phase === 'Running', 'the pod running');
      assert.equal(pods.calls.watch, 1, 'one pods watch');
      assert.equal(pods.watcherCount(), 1);
      assert.equal(nodes.calls.watch, 1, 'one nodes watch');
    } finally {
      await running.stop();
    }
  });
});
