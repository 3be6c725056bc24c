// The controllers' work queues as /metrics shows them: each named as kube-controller-manager
// names its queue, with adds after some work (the namespace queue sees only namespaces being deleted), the depth back at 0 once it is done, and the
// retries of a namespace whose content is still going away.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { rootCAConfigMapName } from '../naming/root-ca.js';
import { eventually } from '../testing/wait.js';
import { startAuthTestServer, type AuthTestServer } from '../testing/server.js';

let t: AuthTestServer;

before(async () => {
  t = await startAuthTestServer();
});

after(async () => {
  await t?.stop();
});

function sample(text: string, metric: string, queue: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${metric}{name="${queue}"} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function metrics(): Promise<string> {
  const res = await t.request('GET', '/metrics', t.admin);
  assert.equal(res.status, 200);
  return res.text;
}

async function create(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await t.request('POST', path, t.admin, body);
  assert.equal(res.status, 201, res.text);
  return res.json;
}

test('/metrics shows each controller queue by its Kubernetes name after work', async () => {
  await create('/api/v1/namespaces', { metadata: { name: 'metrics-work' } });
  // A dependent of an owner that never existed: the garbage collector deletes it.
  await create('/api/v1/namespaces/metrics-work/configmaps', {
    metadata: { name: 'orphaned', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'gone', uid: '9d3f6a58-0000-4000-8000-000000000001' }] },
  });
  const podTemplate = { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } };
  await create('/apis/batch/v1/namespaces/metrics-work/jobs', { metadata: { name: 'once' }, spec: { template: podTemplate } });
  await create('/apis/batch/v1/namespaces/metrics-work/cronjobs', {
    metadata: { name: 'every-minute' },
    spec: { schedule: '*/1 * * * *', jobTemplate: { spec: { template: podTemplate } } },
  });
  await eventually(async () => (await t.request('GET', '/api/v1/namespaces/metrics-work/configmaps/orphaned', t.admin)).status === 404, 'the dependent collected');
  await eventually(async () => (await t.request('GET', `/api/v1/namespaces/metrics-work/configmaps/${rootCAConfigMapName()}`, t.admin)).status === 200, 'the root CA published');

  const queues = ['serviceaccount', 'root_ca_cert_publisher', 'garbage_collector_attempt_to_delete', 'job', 'cronjob'];
  let last = '';
  const text = await eventually(async () => {
    last = await metrics();
    return queues.every((q) => (sample(last, 'workqueue_adds_total', q) ?? 0) > 0 && sample(last, 'workqueue_depth', q) === 0) && last;
  }, 'adds for every queue and depths back at 0').catch((err: Error) => {
    throw new Error(`${err.message}:\n${last.split('\n').filter((l) => l.startsWith('workqueue_')).join('\n')}`);
  });
  assert.match(text, /^# TYPE workqueue_depth gauge$/m);
  assert.match(text, /^# TYPE workqueue_adds_total counter$/m);
  assert.equal(sample(text, 'workqueue_adds_total', 'garbage_collector_attempt_to_orphan'), undefined, 'no orphaning asked for');
});

test('a namespace whose content stays is retried, and the retries show', async () => {
  const before = sample(await metrics(), 'workqueue_retries_total', 'namespace') ?? 0;
  await create('/api/v1/namespaces', { metadata: { name: 'metrics-held' } });
  await create('/api/v1/namespaces/metrics-held/configmaps', { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
  assert.equal((await t.request('DELETE', '/api/v1/namespaces/metrics-held', t.admin)).status, 200);
  await eventually(async () => (sample(await metrics(), 'workqueue_retries_total', 'namespace') ?? 0) > before, 'a namespace retry counted', 15_000);
  assert.ok((sample(await metrics(), 'workqueue_adds_total', 'namespace') ?? 0) > 0);
  // Let it go, so the namespace finishes.
  const patch = await t.request('PATCH', '/api/v1/namespaces/metrics-held/configmaps/held', { ...t.admin, headers: { 'Content-Type': 'application/merge-patch+json' } }, { metadata: { finalizers: null } });
  assert.equal(patch.status, 200, patch.text);
  await eventually(async () => (await t.request('GET', '/api/v1/namespaces/metrics-held', t.admin)).status === 404, 'the namespace gone', 15_000);
});
