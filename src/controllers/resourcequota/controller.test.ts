// The resource quota controller over the real registry (memory storage) with a FakeClock:
// status.hard and status.used of every countable resource, scopes, replenishment on
// deletions and finished pods, and the full resync on the clock.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinResourceDefinitions } from '../../apis/definitions.js';
import { FakeClock } from '../../apimachinery/clock.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { SharedInformerFactory } from '../../client/informer-factory.js';
import { LoopbackClient } from '../../server/loopback.js';
import { memoryTable, type MemoryTable } from '../../testing/memory-table.js';
import { eventually } from '../../testing/wait.js';
import { settleControllers } from '../../testing/controllers.js';
import { group, setFlavor } from '../../naming/index.js';
import { discoverFromTable } from '../discovery.js';
import { ResourceQuotaController } from './index.js';

const R = {
  namespaces: { group: '', version: 'v1', resource: 'namespaces' },
  pods: { group: '', version: 'v1', resource: 'pods' },
  configmaps: { group: '', version: 'v1', resource: 'configmaps' },
  services: { group: '', version: 'v1', resource: 'services' },
  pvcs: { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
  quotas: { group: '', version: 'v1', resource: 'resourcequotas' },
  deployments: { group: 'apps', version: 'v1', resource: 'deployments' },
};
const RESYNC_MS = 300_000;

interface Harness {
  client: LoopbackClient;
  clock: FakeClock;
  errors: unknown[];
  controller: ResourceQuotaController;
  informers: SharedInformerFactory;
  table: MemoryTable['table'];
  /** The quota's status.used once it equals `want`. */
  usedBecomes(name: string, want: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  setFlavor('orch');
});

async function start(opts: { discover?: () => ReturnType<typeof discoverFromTable>; onResourcesChanged?: (l: () => void) => () => void } = {}): Promise<Harness> {
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const mt: MemoryTable = memoryTable(builtinResourceDefinitions({ runtimeConfig: '' }), { now: () => clock.now() });
  const client = new LoopbackClient(mt.table, { username: 'admin', groups: ['system:masters'] });
  await client.create(R.namespaces, '', { metadata: { name: 'team' } });
  await client.create(R.namespaces, '', { metadata: { name: 'other' } });
  const informers = new SharedInformerFactory(client);
  const errors: unknown[] = [];
  const controller = new ResourceQuotaController({
    client,
    informers,
    clock,
    discover: async () => (opts.discover ? opts.discover() : discoverFromTable(mt.table)),
    ...(opts.onResourcesChanged ? { onResourcesChanged: opts.onResourcesChanged } : {}),
    resyncPeriodMs: RESYNC_MS,
    onError: (err) => errors.push(err),
  });
  informers.start();
  controller.start(2);
  const h: Harness = {
    client,
    clock,
    errors,
    controller,
    informers,
    table: mt.table,
    async usedBecomes(name, want) {
      let last: unknown;
      try {
        await eventually(async () => {
          const q = await client.get(R.quotas, 'team', name);
          last = (q.status as { used?: unknown } | undefined)?.used;
          return JSON.stringify(sortKeys(last)) === JSON.stringify(sortKeys(want));
        }, `status.used of ${name}`, 5_000);
      } catch (err) {
        assert.deepEqual(last, want, String(err));
      }
    },
    async close() {
      await controller.stop();
      await informers.stop();
      await mt.close();
    },
  };
  open.push(h);
  return h;
}

function sortKeys(v: unknown): unknown {
  return v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v;
}

const pod = (name: string, resources: Record<string, unknown> = {}, spec: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'nginx', resources }], ...spec },
});

async function setPhase(client: LoopbackClient, name: string, phase: string): Promise<void> {
  const p = await client.get(R.pods, 'team', name);
  await client.update(R.pods, 'team', { ...p, status: { ...(p.status as object), phase } }, 'status');
}

for (const flavor of ['orch', 'kubernetes'] as const) {
  describe(`resource quota controller (${flavor} flavor)`, () => {
    it('computes status.hard and status.used of counts, compute, services and claims', async () => {
      setFlavor(flavor);
      const h = await start();
      const gold = `gold.storageclass.${group('storage')}/requests.storage`;
      const hard = {
        pods: '10',
        'count/pods': '10',
        'requests.cpu': '4',
        cpu: '4',
        'limits.memory': '4Gi',
        'requests.example.com/gpu': '4',
        configmaps: '10',
        'count/deployments.apps': '5',
        'count/widgets.example.com': '5',
        services: '5',
        'services.nodeports': '5',
        'services.loadbalancers': '1',
        'requests.storage': '100Gi',
        [gold]: '50Gi',
      };
      await h.client.create(R.pods, 'team', pod('a', { requests: { cpu: '500m', 'example.com/gpu': '1' }, limits: { memory: '1Gi', 'example.com/gpu': '1' } }));
      await h.client.create(R.pods, 'team', pod('b', { requests: { cpu: '250m' } }));
      await h.client.create(R.pods, 'other', pod('elsewhere', { requests: { cpu: '1' } }));
      await h.client.create(R.configmaps, 'team', { metadata: { name: 'c1' } });
      await h.client.create(R.services, 'team', { metadata: { name: 'np' }, spec: { type: 'NodePort', ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] } });
      await h.client.create(R.pvcs, 'team', { metadata: { name: 'claim' }, spec: { storageClassName: 'gold', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } } });
      await h.client.create(R.deployments, 'team', {
        metadata: { name: 'd' },
        spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
      });
      await h.client.create(R.quotas, 'team', { metadata: { name: 'q' }, spec: { hard } });
      await h.usedBecomes('q', {
        pods: '2',
        'count/pods': '2',
        'requests.cpu': '750m',
        cpu: '750m',
        'limits.memory': '1Gi',
        'requests.example.com/gpu': '1',
        configmaps: '1',
        'count/deployments.apps': '1',
        services: '1',
        'services.nodeports': '2',
        'services.loadbalancers': '0',
        'requests.storage': '10Gi',
        [gold]: '10Gi',
      });
      const q = await h.client.get(R.quotas, 'team', 'q');
      assert.deepEqual((q.status as { hard: unknown }).hard, hard);
      assert.deepEqual(h.errors, []);
    });
  });
}

describe('resource quota controller', () => {
  it('replenishes when a pod finishes or an object is deleted, and follows spec changes', async () => {
    const h = await start();
    await h.client.create(R.quotas, 'team', { metadata: { name: 'q' }, spec: { hard: { pods: '5', 'count/pods': '5', 'requests.cpu': '2', configmaps: '5' } } });
    await h.usedBecomes('q', { pods: '0', 'count/pods': '0', 'requests.cpu': '0', configmaps: '0' });
    await h.client.create(R.pods, 'team', pod('a', { requests: { cpu: '1' } }));
    await h.client.create(R.pods, 'team', pod('b', { requests: { cpu: '500m' } }));
    await h.client.create(R.configmaps, 'team', { metadata: { name: 'c1' } });
    await h.client.create(R.configmaps, 'team', { metadata: { name: 'c2' } });
    await h.usedBecomes('q', { pods: '2', 'count/pods': '2', 'requests.cpu': '1500m', configmaps: '2' });
    // A finished pod frees its compute and its place under `pods`, not under `count/pods`.
    await setPhase(h.client, 'a', 'Succeeded');
    await h.usedBecomes('q', { pods: '1', 'count/pods': '2', 'requests.cpu': '500m', configmaps: '2' });
    await h.client.delete(R.configmaps, 'team', 'c1');
    await h.client.delete(R.pods, 'team', 'b', { gracePeriodSeconds: 0 });
    await h.usedBecomes('q', { pods: '0', 'count/pods': '1', 'requests.cpu': '0', configmaps: '1' });
    // A new limit is measured at once; a dropped one leaves the status.
    const q = await h.client.get(R.quotas, 'team', 'q');
    await h.client.update(R.quotas, 'team', { ...q, spec: { hard: { configmaps: '3', secrets: '2' } } });
    await h.usedBecomes('q', { configmaps: '1', secrets: '0' });
    assert.deepEqual(((await h.client.get(R.quotas, 'team', 'q')).status as { hard: unknown }).hard, { configmaps: '3', secrets: '2' });
  });

  it('counts only the pods a quota scopes select', async () => {
    const h = await start();
    await h.client.create({ group: group('scheduling'), version: 'v1', resource: 'priorityclasses' }, '', { metadata: { name: 'high' }, value: 1000 });
    await h.client.create(R.quotas, 'team', { metadata: { name: 'besteffort' }, spec: { hard: { pods: '5' }, scopes: ['BestEffort'] } });
    await h.client.create(R.quotas, 'team', { metadata: { name: 'terminating' }, spec: { hard: { pods: '5', 'requests.cpu': '5' }, scopes: ['Terminating', 'NotBestEffort'] } });
    await h.client.create(R.quotas, 'team', {
      metadata: { name: 'high' },
      spec: { hard: { pods: '5' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } },
    });
    await h.client.create(R.pods, 'team', pod('plain'));
    await h.client.create(R.pods, 'team', pod('deadline', { requests: { cpu: '1' } }, { activeDeadlineSeconds: 60 }));
    await h.client.create(R.pods, 'team', pod('deadline-besteffort', {}, { activeDeadlineSeconds: 60 }));
    await h.client.create(R.pods, 'team', pod('important', { requests: { cpu: '1' } }, { priorityClassName: 'high' }));
    await h.usedBecomes('besteffort', { pods: '2' });
    await h.usedBecomes('terminating', { pods: '1', 'requests.cpu': '1' });
    await h.usedBecomes('high', { pods: '1' });
  });

  it('corrects a wrong status.used on the full resync, on its clock', async () => {
    const h = await start();
    await h.client.create(R.quotas, 'team', { metadata: { name: 'q' }, spec: { hard: { configmaps: '5' } } });
    await h.client.create(R.configmaps, 'team', { metadata: { name: 'c1' } });
    await h.usedBecomes('q', { configmaps: '1' });
    const q = await h.client.get(R.quotas, 'team', 'q');
    await h.client.update(R.quotas, 'team', { ...q, status: { hard: { configmaps: '5' }, used: { configmaps: '4' } } }, 'status');
    // Its own kind of write (status only) does not wake the controller: the figure stays.
    await settleControllers(h.client, [h.informers.informerFor(R.quotas), h.informers.informerFor(R.configmaps)], () => h.controller.idle());
    assert.deepEqual(((await h.client.get(R.quotas, 'team', 'q')).status as { used: unknown }).used, { configmaps: '4' });
    h.clock.step(RESYNC_MS);
    await h.usedBecomes('q', { configmaps: '1' });
  });

  it('measures a counted kind once it is served, told by the resource change', async () => {
    let served = false;
    let changed = (): void => {};
    const h = await start({
      discover: () => discoverFromTable(h.table).filter((d) => served || d.group !== 'apps'),
      onResourcesChanged: (l) => {
        changed = l;
        return () => {};
      },
    });
    await h.client.create(R.quotas, 'team', { metadata: { name: 'q' }, spec: { hard: { configmaps: '5', 'count/deployments.apps': '2' } } });
    // Not served: nothing measures it, so it has no usage yet.
    await h.usedBecomes('q', { configmaps: '0' });
    served = true;
    changed();
    await h.usedBecomes('q', { configmaps: '0', 'count/deployments.apps': '0' });
  });

  it('a terminating pod stops counting at the end of its grace period, on the clock', async () => {
    const h = await start();
    await h.client.create(R.quotas, 'team', { metadata: { name: 'q' }, spec: { hard: { pods: '5', 'count/pods': '5' } } });
    // Bound to a node that never confirms: the deletion waits, the pod stays stored.
    await h.client.create(R.pods, 'team', pod('stuck', {}, { nodeName: 'gone' }));
    await h.usedBecomes('q', { pods: '1', 'count/pods': '1' });
    await h.client.delete(R.pods, 'team', 'stuck', { gracePeriodSeconds: 30 });
    const stored = await h.client.get(R.pods, 'team', 'stuck');
    assert.equal(stored.metadata?.deletionGracePeriodSeconds, 30);
    await settleControllers(h.client, [h.informers.informerFor(R.quotas), h.informers.informerFor(R.pods)], () => h.controller.idle());
    h.clock.step(30_000);
    assert.deepEqual(((await h.client.get(R.quotas, 'team', 'q')).status as { used: unknown }).used, { pods: '1', 'count/pods': '1' });
    // The deletion timestamp is the end of the grace period; the pod counts for one more.
    h.clock.step(30_001);
    await h.usedBecomes('q', { pods: '0', 'count/pods': '1' });
  });
});
