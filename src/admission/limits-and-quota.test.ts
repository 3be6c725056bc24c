// LimitRanger and ResourceQuota over the real registry.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import { aggregate } from './limit-ranger.js';
import { fixture, pod, R } from '../testing/admission.js';

type J = Record<string, unknown>;
const containers = (o: KubeObject): J[] => (o.spec as { containers: J[] }).containers;

function forbidden(message: string): (e: unknown) => boolean {
  return (e: unknown) => {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.code, 403);
    assert.equal(e.message, message);
    return true;
  };
}

const withResources = (name: string, resources: J): KubeObject => pod(name, { containers: [{ name: 'app', image: 'nginx', resources }] });

test('LimitRanger: containers get the default requests and limits, noted in an annotation', async () => {
  const f = await fixture();
  try {
    await f.client.create(R.limitranges, 'team', {
      metadata: { name: 'defaults' },
      spec: { limits: [{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m' } }] },
    });
    const created = await f.client.create(R.pods, 'team', pod('web', { initContainers: [{ name: 'init', image: 'busybox', resources: { limits: { memory: '64Mi' } } }] }));
    assert.deepEqual(containers(created)[0]!.resources, { requests: { cpu: '100m', memory: '256Mi' }, limits: { cpu: '500m', memory: '256Mi' } });
    const init = (created.spec as { initContainers: J[] }).initContainers[0]!;
    assert.deepEqual(init.resources, { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '500m', memory: '64Mi' } });
    assert.equal(
      created.metadata?.annotations?.['orch.io/limit-ranger'],
      'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app; cpu request for init container init; cpu limit for init container init',
    );
  } finally {
    await f.close();
  }
});

test('LimitRanger: minimum, maximum and ratio per container and per pod, and claim storage bounds', async () => {
  const f = await fixture();
  try {
    await f.client.create(R.limitranges, 'team', {
      metadata: { name: 'bounds' },
      spec: {
        limits: [
          { type: 'Container', max: { cpu: '1' }, min: { cpu: '100m' }, maxLimitRequestRatio: { cpu: '2' } },
          { type: 'Pod', max: { memory: '1Gi' } },
          { type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } },
        ],
      },
    });
    await assert.rejects(
      f.client.create(R.pods, 'team', withResources('big', { requests: { cpu: '1500m', memory: '1Gi' }, limits: { cpu: '2', memory: '1Gi' } })),
      forbidden('pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2'),
    );
    await assert.rejects(
      f.client.create(R.pods, 'team', withResources('ratio', { requests: { cpu: '200m', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } })),
      forbidden('pods "ratio" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 5.000000'),
    );
    await assert.rejects(
      f.client.create(R.pods, 'team', withResources('small', { requests: { cpu: '50m', memory: '2Gi' }, limits: { cpu: '50m', memory: '2Gi' } })),
      forbidden('pods "small" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, maximum memory usage per Pod is 1Gi, but limit is 2Gi]'),
    );
    await f.client.create(R.pods, 'team', withResources('fits', { requests: { cpu: '500m', memory: '512Mi' }, limits: { cpu: '1', memory: '512Mi' } }));
    const claim = (name: string, storage: string): KubeObject => ({ metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } } });
    await assert.rejects(f.client.create(R.pvcs, 'team', claim('tiny', '500Mi')), forbidden('persistentvolumeclaims "tiny" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi'));
    await assert.rejects(f.client.create(R.pvcs, 'team', claim('huge', '20Gi')), forbidden('persistentvolumeclaims "huge" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi'));
    await f.client.create(R.pvcs, 'team', claim('ok', '5Gi'));
  } finally {
    await f.close();
  }
});

test('aggregate errors read as Kubernetes prints them', () => {
  assert.equal(aggregate(['a']), 'a');
  assert.equal(aggregate(['a', 'b', 'a']), '[a, b]');
});

/** Creates a quota and gives it the status the quota controller would compute (nothing used yet). */
async function computedQuota(f: Awaited<ReturnType<typeof fixture>>, name: string, spec: J, used: Record<string, string> = {}): Promise<KubeObject> {
  const created = await f.plain.create(R.quotas, 'team', { metadata: { name }, spec });
  const hard = spec.hard as Record<string, string>;
  const zeros = Object.fromEntries(Object.keys(hard).map((k) => [k, used[k] ?? '0']));
  return f.plain.update(R.quotas, 'team', { ...created, status: { hard, used: zeros } }, 'status');
}

test('ResourceQuota: object counts are charged against status.used with the exact message', async () => {
  const f = await fixture();
  try {
    await computedQuota(f, 'counts', { hard: { configmaps: '2', [`count/deployments.apps`]: '0' } });
    await f.client.create(R.configmaps, 'team', { metadata: { name: 'a' } });
    await f.client.create(R.configmaps, 'team', { metadata: { name: 'b' } });
    await assert.rejects(
      f.client.create(R.configmaps, 'team', { metadata: { name: 'c' } }),
      forbidden('configmaps "c" is forbidden: exceeded quota: counts, requested: configmaps=1, used: configmaps=2, limited: configmaps=2'),
    );
    const quota = await f.plain.get(R.quotas, 'team', 'counts');
    assert.deepEqual(quota.status, { hard: { configmaps: '2', 'count/deployments.apps': '0' }, used: { configmaps: '2', 'count/deployments.apps': '0' } });
    // A deletion frees nothing by itself: the quota controller replenishes status.used.
    await f.client.delete(R.configmaps, 'team', 'a');
    await assert.rejects(f.client.create(R.configmaps, 'team', { metadata: { name: 'c' } }), forbidden('configmaps "c" is forbidden: exceeded quota: counts, requested: configmaps=1, used: configmaps=2, limited: configmaps=2'));
    const deployment = { metadata: { name: 'd' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } };
    await assert.rejects(
      f.client.create({ group: 'apps', version: 'v1', resource: 'deployments' }, 'team', deployment),
      forbidden(`deployments.apps "d" is forbidden: exceeded quota: counts, requested: count/deployments.apps=1, used: count/deployments.apps=0, limited: count/deployments.apps=0`),
    );
  } finally {
    await f.close();
  }
});

test('ResourceQuota: the usage recorded in the status is what a write is checked against', async () => {
  const f = await fixture();
  try {
    // The status says two are used though none exist: the plugin believes the status.
    await computedQuota(f, 'counts', { hard: { configmaps: '2' } }, { configmaps: '2' });
    await assert.rejects(
      f.client.create(R.configmaps, 'team', { metadata: { name: 'a' } }),
      forbidden('configmaps "a" is forbidden: exceeded quota: counts, requested: configmaps=1, used: configmaps=2, limited: configmaps=2'),
    );
    const q = await f.plain.get(R.quotas, 'team', 'counts');
    await f.plain.update(R.quotas, 'team', { ...q, status: { hard: { configmaps: '2' }, used: { configmaps: '1' } } }, 'status');
    await f.client.create(R.configmaps, 'team', { metadata: { name: 'a' } });
    assert.deepEqual(((await f.plain.get(R.quotas, 'team', 'counts')).status as J).used, { configmaps: '2' });
  } finally {
    await f.close();
  }
});

test('ResourceQuota: a quota not yet computed limits nothing; one whose status lacks a usage refuses', async () => {
  const f = await fixture();
  try {
    const created = await f.plain.create(R.quotas, 'team', { metadata: { name: 'fresh' }, spec: { hard: { configmaps: '0', secrets: '5' } } });
    // No status yet (the controller has not run): nothing is limited or charged, as in kube.
    await f.client.create(R.configmaps, 'team', { metadata: { name: 'a' } });
    assert.equal(((await f.plain.get(R.quotas, 'team', 'fresh')).status as J | undefined)?.used, undefined);
    // status.hard names configmaps but status.used has no figure for them: "status unknown".
    await f.plain.update(R.quotas, 'team', { ...created, status: { hard: { configmaps: '0', secrets: '5' }, used: { secrets: '0' } } }, 'status');
    await assert.rejects(f.client.create(R.configmaps, 'team', { metadata: { name: 'b' } }), forbidden('configmaps "b" is forbidden: status unknown for quota: fresh, resources: configmaps'));
    await f.client.create({ group: '', version: 'v1', resource: 'secrets' }, 'team', { metadata: { name: 's' } });
  } finally {
    await f.close();
  }
});

test('ResourceQuota: compute resources must be stated and are summed over the pods', async () => {
  const f = await fixture();
  try {
    await computedQuota(f, 'compute', { hard: { pods: '5', 'requests.cpu': '1', 'limits.memory': '1Gi' } });
    await assert.rejects(f.client.create(R.pods, 'team', pod('bare')), forbidden('pods "bare" is forbidden: failed quota: compute: must specify limits.memory,requests.cpu'));
    const sized = (name: string, cpu: string): KubeObject => withResources(name, { requests: { cpu }, limits: { memory: '256Mi' } });
    await f.client.create(R.pods, 'team', sized('a', '600m'));
    await assert.rejects(
      f.client.create(R.pods, 'team', sized('b', '500m')),
      forbidden('pods "b" is forbidden: exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1'),
    );
    await f.client.create(R.pods, 'team', sized('c', '400m'));
    const quota = await f.plain.get(R.quotas, 'team', 'compute');
    assert.deepEqual((quota.status as J).used, { pods: '2', 'requests.cpu': '1', 'limits.memory': '512Mi' });
  } finally {
    await f.close();
  }
});
