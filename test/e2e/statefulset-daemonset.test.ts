// Black-box through kubectl (kubernetes flavor): a StatefulSet starts its pods in ordinal order,
// rolls out, and rolls back from its ControllerRevisions; a DaemonSet puts one pod on each Node,
// pinned by node affinity. No node agent and no scheduler run: the test reports pods Running and
// Ready through pods/status, as a kubelet would.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isApiError } from '../../src/apimachinery/errors.js';
import { HttpClient } from '../../src/client/http.js';
import { readKubeconfig } from '../../src/client/kubeconfig.js';
import { startApiServer } from '../../src/lib/index.js';
import { eventually, Kubectl, kubectlPath } from './harness.js';

const binary = kubectlPath();
const skip = binary ? undefined : 'kubectl is not on PATH';
const PODS = { group: '', version: 'v1', resource: 'pods' };

/** Reports `name` Running and Ready; a conflict with a controller's write is retried. */
async function makeReady(client: HttpClient, name: string): Promise<void> {
  const status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] };
  await eventually(async () => {
    try {
      await client.patch(PODS, 'default', name, { status }, 'status');
      return true;
    } catch (err) {
      if (isApiError(err) && err.code === 409) return undefined;
      throw err;
    }
  }, `${name} ready`);
}

/** Marks every pod Ready until stopped. */
function readyEveryPod(client: HttpClient): () => Promise<void> {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const pods = await client.list(PODS, 'default').catch(() => ({ items: [] }));
      for (const p of pods.items) {
        const ready = (p.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
        if (ready || p.metadata?.deletionTimestamp) continue;
        await makeReady(client, p.metadata?.name ?? '').catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

test('kubectl: a StatefulSet starts web-0 then web-1 once web-0 is Ready, rolls out, shows its history and undoes', { skip, timeout: 180_000 }, async () => {
  const server = await startApiServer({ flavor: 'kubernetes', scheduler: false });
  const kubectl = new Kubectl(binary!, server.kubeconfigPath);
  const client = new HttpClient(readKubeconfig(server.kubeconfigPath), { timeoutMs: 10_000 });
  const ok = async (args: string[], input?: string): Promise<string> => {
    const r = await kubectl.run(args, input === undefined ? {} : { input });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const podNames = async (): Promise<string> => (await ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.name}'])).trim();
  let stopReady: (() => Promise<void>) | undefined;
  try {
    const set = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'web' },
      spec: {
        replicas: 2,
        serviceName: 'nginx',
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1' }] } },
      },
    };
    await ok(['apply', '-f', '-'], JSON.stringify(set));
    await eventually(async () => ((await podNames()) === 'web-0' ? true : undefined), 'web-0');
    await server.settled();
    assert.equal(await podNames(), 'web-0', 'web-1 waits for web-0');
    const web0 = JSON.parse(await ok(['get', 'pod', 'web-0', '-o', 'json'])) as { metadata: { labels: Record<string, string> }; spec: { hostname: string; subdomain: string } };
    assert.equal(web0.metadata.labels['statefulset.kubernetes.io/pod-name'], 'web-0');
    assert.equal(web0.spec.hostname, 'web-0');
    assert.equal(web0.spec.subdomain, 'nginx');
    await makeReady(client, 'web-0');
    await eventually(async () => ((await podNames()) === 'web-0 web-1' ? true : undefined), 'web-1 after web-0 is Ready');
    await makeReady(client, 'web-1');
    const status = await ok(['rollout', 'status', 'statefulset/web', '--timeout=60s']);
    // The API defaults `partition` to 0, so kubectl reports a partitioned roll out (as it does against kube).
    assert.match(status, /partitioned roll out complete: 2 new pods have been updated\.\.\./);
    const events = await ok(['get', 'events', '--field-selector', 'involvedObject.kind=StatefulSet', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}']);
    assert.match(events, /SuccessfulCreate: create Pod web-0 in StatefulSet web successful/);
    assert.match(events, /SuccessfulCreate: create Pod web-1 in StatefulSet web successful/);

    stopReady = readyEveryPod(client);
    await ok(['set', 'image', 'statefulset/web', 'nginx=nginx:2']);
    await ok(['rollout', 'status', 'statefulset/web', '--timeout=90s']);
    const image = async (): Promise<string> => (await ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].spec.containers[0].image}'])).trim();
    assert.equal(await image(), 'nginx:2 nginx:2');
    const history = await ok(['rollout', 'history', 'statefulset/web']);
    assert.match(history, /^1\s/m);
    assert.match(history, /^2\s/m);
    await ok(['rollout', 'undo', 'statefulset/web']);
    await ok(['rollout', 'status', 'statefulset/web', '--timeout=90s']);
    await eventually(async () => ((await image()) === 'nginx:1 nginx:1' ? true : undefined), 'rolled back');
    assert.match(await ok(['rollout', 'history', 'statefulset/web']), /^3\s/m);
  } finally {
    await stopReady?.();
    kubectl.dispose();
    await server.stop();
  }
});

test('kubectl: a DaemonSet puts one pod on each of three Nodes, each pinned by node affinity, rolls out and undoes', { skip, timeout: 120_000 }, async () => {
  const server = await startApiServer({ flavor: 'kubernetes', scheduler: false });
  const kubectl = new Kubectl(binary!, server.kubeconfigPath);
  const client = new HttpClient(readKubeconfig(server.kubeconfigPath), { timeoutMs: 10_000 });
  const ok = async (args: string[], input?: string): Promise<string> => {
    const r = await kubectl.run(args, input === undefined ? {} : { input });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const stopReady = readyEveryPod(client);
  try {
    for (const name of ['node-a', 'node-b', 'node-c']) {
      await ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } } }));
    }
    const ds = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'agent:1' }] } },
      },
    };
    await ok(['apply', '-f', '-'], JSON.stringify(ds));
    type Pod = { metadata: { labels: Record<string, string> }; spec: { nodeName?: string; affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: { matchFields: { key: string; operator: string; values: string[] }[] }[] } } } } };
    const pods = await eventually(async () => {
      const list = JSON.parse(await ok(['get', 'pods', '-l', 'app=agent', '-o', 'json'])) as { items: Pod[] };
      return list.items.length === 3 ? list.items : undefined;
    }, 'three daemon pods');
    const nodes = pods.map((p) => {
      const [term] = p.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;
      assert.equal(term.matchFields.length, 1);
      assert.equal(term.matchFields[0].key, 'metadata.name');
      assert.equal(term.matchFields[0].operator, 'In');
      assert.equal(p.spec.nodeName, undefined);
      assert.ok(p.metadata.labels['controller-revision-hash']);
      assert.equal(p.metadata.labels['pod-template-generation'], '1');
      return term.matchFields[0].values.join(',');
    });
    assert.deepEqual(nodes.sort(), ['node-a', 'node-b', 'node-c']);
    const status = await ok(['rollout', 'status', 'daemonset/agent', '--timeout=60s']);
    assert.match(status, /daemon set "agent" successfully rolled out/);
    const row = await ok(['get', 'daemonset', 'agent', '--no-headers']);
    assert.match(row, /^agent\s+3\s+3\s+3\s+3\s+3\s/);

    // A template change rolls out one node at a time; undo applies the first revision's data.
    await ok(['set', 'image', 'daemonset/agent', 'agent=agent:2']);
    await ok(['rollout', 'status', 'daemonset/agent', '--timeout=90s']);
    const images = async (): Promise<string> => (await ok(['get', 'pods', '-l', 'app=agent', '-o', 'jsonpath={.items[*].spec.containers[0].image}'])).trim();
    await eventually(async () => ((await images()) === 'agent:2 agent:2 agent:2' ? true : undefined), 'all updated');
    const history = await ok(['rollout', 'history', 'daemonset/agent']);
    assert.match(history, /^1\s/m);
    assert.match(history, /^2\s/m);
    await ok(['rollout', 'undo', 'daemonset/agent']);
    await eventually(async () => ((await images()) === 'agent:1 agent:1 agent:1' ? true : undefined), 'rolled back', 60_000);
    await ok(['rollout', 'status', 'daemonset/agent', '--timeout=90s']);
  } finally {
    await stopReady();
    kubectl.dispose();
    await server.stop();
  }
});

test('kubectl on simulated nodes: a DaemonSet runs on every node and a StatefulSet starts in order by itself', { skip, timeout: 120_000 }, async () => {
  const server = await startApiServer({ flavor: 'kubernetes', simulatedNodes: 3 });
  const kubectl = new Kubectl(binary!, server.kubeconfigPath);
  const ok = async (args: string[], input?: string): Promise<string> => {
    const r = await kubectl.run(args, input === undefined ? {} : { input });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  try {
    const template = (app: string): unknown => ({ metadata: { labels: { app } }, spec: { containers: [{ name: app, image: `${app}:1` }] } });
    await ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: template('agent') } }));
    assert.match(await ok(['rollout', 'status', 'daemonset/agent', '--timeout=60s']), /daemon set "agent" successfully rolled out/);
    const placed = await ok(['get', 'pods', '-l', 'app=agent', '-o', 'jsonpath={range .items[*]}{.spec.nodeName}={.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values[0]} {.status.phase}{"\\n"}{end}']);
    const rows = placed.trim().split('\n').sort();
    assert.equal(rows.length, 3);
    assert.equal(new Set(rows.map((r) => r.split('=')[0])).size, 3, 'one per node');
    for (const r of rows) assert.match(r, /^(\S+)=\1 Running$/, 'bound to the node its affinity names');

    await ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web' }, spec: { replicas: 3, serviceName: 'web', selector: { matchLabels: { app: 'web' } }, template: template('web') } }));
    await ok(['rollout', 'status', 'statefulset/web', '--timeout=60s']);
    const started = (await ok(['get', 'pods', '-l', 'app=web', '-o', 'json'])) as string;
    const pods = (JSON.parse(started) as { items: { metadata: { name: string; creationTimestamp: string } }[] }).items;
    assert.deepEqual(pods.map((p) => p.metadata.name).sort(), ['web-0', 'web-1', 'web-2']);
  } finally {
    kubectl.dispose();
    await server.stop();
  }
});
