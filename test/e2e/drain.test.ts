// Black-box through kubectl (kubernetes flavor): `kubectl drain` cordons a node and evicts its
// pods through pods/eviction, retrying while a PodDisruptionBudget refuses (429) until the test
// brings a replacement pod up elsewhere; `kubectl debug` adds an ephemeral container.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApiServer } from '../../src/lib/index.js';
import { eventually, Kubectl, kubectlPath } from './harness.js';

const binary = kubectlPath();
const skip = binary ? undefined : 'kubectl is not on PATH';

const json = (s: string): Record<string, unknown> => JSON.parse(s) as Record<string, unknown>;

test('kubectl drain evicts a node\'s pods as their budget allows, and cordons the node', { skip, timeout: 120_000 }, async () => {
  // The test plays the ReplicaSet's part (replacements on the other node), so its controller is off.
  const server = await startApiServer({ flavor: 'kubernetes', controllers: ['*', '-replicaset'] });
  const kubectl = new Kubectl(binary!, server.kubeconfigPath);
  const ok = async (args: string[], input?: string): Promise<string> => {
    const r = await kubectl.run(args, input === undefined ? {} : { input });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  try {
    for (const node of ['n1', 'n2']) await ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: node } }));
    // The pods' owner exists (its controller is off), so drain sees managed pods and the collector keeps them.
    await ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: 'web', namespace: 'default' },
        spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
      }),
    );
    const rsUid = await ok(['get', 'rs', 'web', '-o', 'jsonpath={.metadata.uid}']);
    const makePod = async (name: string, node: string): Promise<void> => {
      await ok(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, namespace: 'default', labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rsUid, controller: true }] },
          spec: { nodeName: node, containers: [{ name: 'c', image: 'nginx' }] },
        }),
      );
      // What a kubelet would report: running and ready.
      await ok(['patch', 'pod', name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } })]);
    };
    for (const name of ['web-1', 'web-2', 'web-3']) await makePod(name, 'n1');
    await ok(['create', 'poddisruptionbudget', 'web', '--selector=app=web', '--min-available=3']);
    // Three healthy, three needed: nothing may go until a replacement is up.
    await eventually(async () => {
      const pdb = json(await ok(['get', 'pdb', 'web', '-o', 'json']));
      const st = pdb.status as { currentHealthy?: number; observedGeneration?: number };
      return st.currentHealthy === 3 && st.observedGeneration === 1 ? true : undefined;
    }, 'the budget to be computed');

    const drain = kubectl.spawn(['drain', 'n1', '--ignore-daemonsets', '--delete-emptydir-data', '--grace-period=0', '--timeout=90s']);
    // Cordoned at once; the evictions are refused with 429 and retried.
    await eventually(async () => (json(await ok(['get', 'node', 'n1', '-o', 'json'])).spec as { unschedulable?: boolean } | undefined)?.unschedulable === true || undefined, 'the node to be cordoned');
    await eventually(() => (/disruption budget/.test(drain.output()) ? true : undefined), 'drain to meet the budget', 30_000);
    assert.equal((await ok(['get', 'pods', '-o', 'name'])).trim().split('\n').length, 3, 'no pod evicted while the budget is used up');

    // Each replacement on the other node frees the budget for one more eviction.
    for (let i = 1; i <= 3; i++) {
      await makePod(`web-new-${i}`, 'n2');
      await eventually(async () => {
        const left = (await ok(['get', 'pods', '--field-selector=spec.nodeName=n1', '-o', 'name'])).trim();
        return left === '' || left.split('\n').length <= 3 - i ? true : undefined;
      }, `eviction ${i}`, 30_000);
    }
    const code = await drain.exited;
    assert.equal(code, 0, drain.output());
    assert.match(drain.output(), /node\/n1 drained/);
    assert.equal((await ok(['get', 'pods', '--field-selector=spec.nodeName=n1', '-o', 'name'])).trim(), '');
  } finally {
    kubectl.dispose();
    await server.stop();
  }
});

test('kubectl debug adds an ephemeral container to a pod; kubectl sees it in the stored pod', { skip }, async () => {
  const server = await startApiServer({ flavor: 'kubernetes' });
  const kubectl = new Kubectl(binary!, server.kubeconfigPath);
  try {
    const run = await kubectl.run(['run', 'app', '--image=nginx']);
    assert.equal(run.code, 0, run.stderr);
    const debug = await kubectl.run(['debug', 'app', '--image=busybox', '-c', 'dbg']);
    assert.equal(debug.code, 0, debug.stderr);
    const pod = json((await kubectl.run(['get', 'pod', 'app', '-o', 'json'])).stdout);
    const ephemeral = (pod.spec as { ephemeralContainers?: { name: string; image: string }[] }).ephemeralContainers ?? [];
    assert.deepEqual(ephemeral.map((c) => [c.name, c.image]), [['dbg', 'busybox']]);
    // Through the subresource, a name taken by the pod's container is refused, and so is a port.
    const spec = pod.spec as { ephemeralContainers: Record<string, unknown>[] };
    spec.ephemeralContainers.push({ name: 'app', image: 'busybox', ports: [{ containerPort: 80 }] });
    const path = '/api/v1/namespaces/default/pods/app/ephemeralcontainers';
    const refused = await kubectl.run(['replace', '--raw', path, '-f', '-'], { input: JSON.stringify(pod) });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /spec.ephemeralContainers\[1\].name: Duplicate value: "app"/);
    assert.match(refused.stderr, /spec.ephemeralContainers\[1\].ports: Forbidden: cannot be set for an Ephemeral Container/);
    const got = json((await kubectl.run(['get', '--raw', path])).stdout);
    assert.equal(got.kind, 'Pod');
    assert.equal((got.spec as { ephemeralContainers: unknown[] }).ephemeralContainers.length, 1);
  } finally {
    kubectl.dispose();
    await server.stop();
  }
});
