// Black-box through kubectl (kubernetes flavor): a ResourceQuota's usage as the resource
// quota controller computes it (`kubectl describe quota`), creates charged against it by the
// ResourceQuota admission plugin and refused past it with kube's message, and a pod's
// deletion giving its room back.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually, Kubectl, kubectlPath, serverUnavailable, startTestServer, type TestServer } from './harness.js';

const binary = kubectlPath();
const skip = serverUnavailable() ?? (binary ? undefined : 'kubectl is not on PATH');

let server: TestServer;
let kubectl: Kubectl;

before(async () => {
  if (skip) return;
  // No scheduler and no nodes: unscheduled pods are deleted at once, and nothing else writes them.
  server = await startTestServer({ flavor: 'kubernetes', args: ['--scheduler=false'] });
  kubectl = new Kubectl(binary!, server.kubeconfigPath);
});
after(async () => {
  if (skip) return;
  kubectl.dispose();
  await server.stop();
});

const podManifest = (name: string, cpu: string): string =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'quota' }, spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu } } }] } });

/** The Used column of `kubectl describe quota` by resource, once `ready` accepts it. */
async function describedUsage(ready: (used: Record<string, string>) => boolean, what: string): Promise<Record<string, string>> {
  let last = '';
  try {
    return await eventually(async () => {
      const res = await kubectl.run(['describe', 'quota', 'compute', '-n', 'quota']);
      last = res.stdout + res.stderr;
      if (res.code !== 0) return undefined;
      const used: Record<string, string> = {};
      const rows = res.stdout.split('\n');
      const header = rows.findIndex((l) => /^Resource\s+Used\s+Hard/.test(l));
      if (header < 0) return undefined;
      for (const row of rows.slice(header + 2)) {
        const [name, value] = row.trim().split(/\s+/);
        if (name && value) used[name] = value;
      }
      return ready(used) ? used : undefined;
    }, what);
  } catch (err) {
    throw new Error(`${String(err)}; last output:\n${last}`);
  }
}

test('kubectl describe quota shows usage of pods and configmaps; a create past it is refused with kube\'s message; a deletion gives room back', { skip }, async () => {
  assert.equal((await kubectl.run(['create', 'namespace', 'quota'])).code, 0);
  const created = await kubectl.run(['create', 'quota', 'compute', '-n', 'quota', '--hard=pods=2,configmaps=3,requests.cpu=1']);
  assert.equal(created.code, 0, created.stderr);
  // The namespace holds the root CA ConfigMap already: the controller counts it.
  const initial = await describedUsage((u) => u.pods === '0' && u.configmaps !== undefined && u['requests.cpu'] === '0', 'the quota status computed');
  assert.equal(initial.configmaps, '1');

  for (const [name, cpu] of [['web-1', '300m'], ['web-2', '200m']] as const) {
    const res = await kubectl.run(['apply', '-f', '-'], { input: podManifest(name, cpu) });
    assert.equal(res.code, 0, res.stderr);
  }
  const cm = await kubectl.run(['create', 'configmap', 'settings', '-n', 'quota', '--from-literal=a=b']);
  assert.equal(cm.code, 0, cm.stderr);
  const used = await describedUsage((u) => u.pods === '2' && u.configmaps === '2', 'two pods and two configmaps used');
  assert.deepEqual(used, { configmaps: '2', pods: '2', 'requests.cpu': '500m' });

  const refused = await kubectl.run(['apply', '-f', '-'], { input: podManifest('web-3', '100m') });
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /pods "web-3" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2/);

  const deleted = await kubectl.run(['delete', 'pod', 'web-1', '-n', 'quota']);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.deepEqual(await describedUsage((u) => u.pods === '1', 'the deletion replenished'), { configmaps: '2', pods: '1', 'requests.cpu': '200m' });
  const admitted = await kubectl.run(['apply', '-f', '-'], { input: podManifest('web-3', '100m') });
  assert.equal(admitted.code, 0, admitted.stderr);
  assert.deepEqual(await describedUsage((u) => u.pods === '2', 'the new pod charged'), { configmaps: '2', pods: '2', 'requests.cpu': '300m' });
});
