// Black-box through kubectl (kubernetes flavor): Deployments roll out, scale, update, undo,
// pause, resume and restart, and a ReplicationController keeps its replicas. No node agent
// runs here: the test reports every pod Running and Ready through pods/status, as a kubelet would.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpClient } from '../../src/client/http.js';
import { readKubeconfig } from '../../src/client/kubeconfig.js';
import { startApiServer } from '../../src/lib/index.js';
import { eventually, Kubectl, kubectlPath } from './harness.js';

const binary = kubectlPath();
const skip = binary ? undefined : 'kubectl is not on PATH';
const PODS = { group: '', version: 'v1', resource: 'pods' };

/** Marks every pod Ready until stopped. */
function readyEveryPod(client: HttpClient): () => Promise<void> {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const pods = await client.list(PODS, 'default').catch(() => ({ items: [] }));
      for (const p of pods.items) {
        const ready = (p.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
        if (ready || p.metadata?.deletionTimestamp) continue;
        const status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] };
        await client.patch(PODS, 'default', p.metadata?.name ?? '', { status }, 'status').catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

test('kubectl create deployment, rollout status, scale, set image, history, undo, pause, resume, restart', { skip, timeout: 180_000 }, async () => {
  const server = await startApiServer({ flavor: 'kubernetes' });
  const kubectl = new Kubectl(binary!, server.kubeconfigPath);
  const client = new HttpClient(readKubeconfig(server.kubeconfigPath), { timeoutMs: 10_000 });
  const stopNode = readyEveryPod(client);
  const ok = async (args: string[]): Promise<string> => {
    const r = await kubectl.run(args);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const rs = async (): Promise<{ name: string; replicas: number; revision: string; image: string }[]> => {
    const list = JSON.parse(await ok(['get', 'rs', '-o', 'json'])) as { items: { metadata: { name: string; annotations?: Record<string, string> }; spec: { replicas: number; template: { spec: { containers: { image: string }[] } } } }[] };
    return list.items.map((r) => ({ name: r.metadata.name, replicas: r.spec.replicas, revision: r.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? '', image: r.spec.template.spec.containers[0].image }));
  };
  try {
    await ok(['create', 'deployment', 'web', '--image=nginx:1', '--replicas=3']);
    const status = await ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    assert.match(status, /deployment "web" successfully rolled out/);
    const [first] = await rs();
    assert.match(first.name, /^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.equal(first.revision, '1');
    const events = await ok(['get', 'events', '--field-selector', 'involvedObject.kind=Deployment', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}']);
    assert.match(events, new RegExp(`ScalingReplicaSet: Scaled up replica set ${first.name} to 3`));

    await ok(['scale', 'deployment', 'web', '--replicas=5']);
    await ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    await eventually(async () => (JSON.parse(await ok(['get', 'deployment', 'web', '-o', 'json'])) as { status: { availableReplicas?: number } }).status.availableReplicas === 5 || undefined, 'five available');
    assert.equal((await ok(['get', 'pods', '-l', 'app=web', '-o', 'name'])).trim().split('\n').length, 5);

    await ok(['set', 'image', 'deployment/web', 'nginx=nginx:2']);
    await ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    const history = await ok(['rollout', 'history', 'deployment/web']);
    assert.match(history, /^1\s/m);
    assert.match(history, /^2\s/m);
    assert.match(await ok(['rollout', 'history', 'deployment/web', '--revision=2']), /nginx:2/);
    let sets = await rs();
    assert.deepEqual(sets.map((s) => [s.image, s.replicas, s.revision]).sort(), [['nginx:1', 0, '1'], ['nginx:2', 5, '2']]);

    await ok(['rollout', 'undo', 'deployment/web']);
    await ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    sets = await rs();
    // The first ReplicaSet is back, as revision 3.
    assert.deepEqual(sets.map((s) => [s.name, s.image, s.replicas, s.revision]).sort(), [[first.name, 'nginx:1', 5, '3'], [sets.find((s) => s.image === 'nginx:2')!.name, 'nginx:2', 0, '2']].sort());
    assert.match(await ok(['rollout', 'history', 'deployment/web']), /^3\s/m);

    await ok(['rollout', 'pause', 'deployment/web']);
    await ok(['set', 'image', 'deployment/web', 'nginx=nginx:3']);
    await server.settled();
    assert.equal((await rs()).length, 2, 'no rollout while paused');
    const paused = JSON.parse(await ok(['get', 'deployment', 'web', '-o', 'json'])) as { status: { conditions: { type: string; reason: string }[] } };
    assert.equal(paused.status.conditions.find((c) => c.type === 'Progressing')?.reason, 'DeploymentPaused');
    await ok(['rollout', 'resume', 'deployment/web']);
    await ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    assert.deepEqual((await rs()).filter((s) => s.replicas > 0).map((s) => s.image), ['nginx:3']);

    await ok(['rollout', 'restart', 'deployment/web']);
    await ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    sets = await rs();
    assert.equal(sets.length, 4);
    assert.deepEqual(sets.filter((s) => s.replicas > 0).map((s) => s.revision), ['5']);
  } finally {
    await stopNode();
    kubectl.dispose();
    await server.stop();
  }
});

test('a ReplicationController and a ReplicaSet keep their replicas as kubectl scales them', { skip, timeout: 60_000 }, async () => {
  const server = await startApiServer({ flavor: 'kubernetes' });
  const kubectl = new Kubectl(binary!, server.kubeconfigPath);
  const ok = async (args: string[], input?: string): Promise<string> => {
    const r = await kubectl.run(args, input === undefined ? {} : { input });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const podCount = async (label: string): Promise<number> => (await ok(['get', 'pods', '-l', label, '-o', 'name'])).split('\n').filter(Boolean).length;
  try {
    const template = (app: string): unknown => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    await ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc' }, spec: { replicas: 2, selector: { app: 'rc' }, template: template('rc') } }));
    await ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs' }, spec: { replicas: 2, selector: { matchLabels: { app: 'rs' } }, template: template('rs') } }));
    await eventually(async () => ((await podCount('app=rc')) === 2 && (await podCount('app=rs')) === 2) || undefined, 'two pods each');
    await ok(['scale', 'rc', 'rc', '--replicas=4']);
    await ok(['scale', 'rs', 'rs', '--replicas=1']);
    await eventually(async () => ((await podCount('app=rc')) === 4 && (await podCount('app=rs')) === 1) || undefined, 'scaled');
    await eventually(async () => (JSON.parse(await ok(['get', 'rc', 'rc', '-o', 'json'])) as { status: { replicas: number } }).status.replicas === 4 || undefined, 'rc status');
    const events = await ok(['get', 'events', '-o', 'jsonpath={range .items[*]}{.reason} {.reportingComponent}{"\\n"}{end}']);
    assert.match(events, /SuccessfulCreate replication-controller/);
    assert.match(events, /SuccessfulDelete replicaset-controller/);
  } finally {
    kubectl.dispose();
    await server.stop();
  }
});
