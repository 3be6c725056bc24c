// The ResourceQuota plugin's optimistic charge: a status update that conflicts re-reads the
// quota and checks the write again against what a concurrent charge left, three times at most.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, conflict } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import { fixture, R } from '../testing/admission.js';
import { ResourceQuotaAdmission } from './resource-quota.js';
import type { AdmissionAttributes } from './types.js';

type J = Record<string, unknown>;

/** A client whose next `conflicts` quota status updates fail, each after another writer charged one more configmap. */
function racingClient(plain: ApiClient, conflicts: number): ApiClient & { attempts: number } {
  const state = { attempts: 0 };
  const client = new Proxy(plain, {
    get(target, prop, receiver) {
      if (prop === 'attempts') return state.attempts;
      if (prop !== 'update') return Reflect.get(target, prop, receiver) as unknown;
      return async (r: typeof R.quotas, ns: string, obj: KubeObject, sub?: string): Promise<KubeObject> => {
        if (r.resource !== 'resourcequotas' || sub !== 'status') return target.update(r, ns, obj, sub);
        state.attempts++;
        if (state.attempts > conflicts) return target.update(r, ns, obj, sub);
        const current = await target.get(r, ns, obj.metadata?.name ?? '');
        const used = Number(((current.status as J).used as J).configmaps);
        await target.update(r, ns, { ...current, status: { ...(current.status as J), used: { configmaps: String(used + 1) } } }, 'status');
        throw conflict({ group: '', resource: 'resourcequotas' }, obj.metadata?.name ?? '');
      };
    },
  });
  return client as ApiClient & { attempts: number };
}

const attrs = (name: string): AdmissionAttributes => ({
  operation: 'CREATE',
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'team' } },
  kind: { group: '', version: 'v1', kind: 'ConfigMap' },
  resource: R.configmaps,
  subresource: '',
  namespace: 'team',
  name,
  user: { username: 'admin', groups: [] },
  dryRun: false,
  warnings: [],
});

async function quotaWith(plain: ApiClient, hard: string, used: string): Promise<void> {
  const created = await plain.create(R.quotas, 'team', { metadata: { name: 'q' }, spec: { hard: { configmaps: hard } } });
  await plain.update(R.quotas, 'team', { ...created, status: { hard: { configmaps: hard }, used: { configmaps: used } } }, 'status');
}

const usedNow = async (plain: ApiClient): Promise<unknown> => ((await plain.get(R.quotas, 'team', 'q')).status as J).used;

test('a conflicting charge is checked again against the newer usage and recorded on it', async () => {
  const f = await fixture();
  try {
    await quotaWith(f.plain, '5', '1');
    const client = racingClient(f.plain, 2);
    await new ResourceQuotaAdmission(client).validate(attrs('a'));
    assert.equal(client.attempts, 3);
    // 1 used, two concurrent charges, then this one.
    assert.deepEqual(await usedNow(f.plain), { configmaps: '4' });
  } finally {
    await f.close();
  }
});

test('a retry that no longer fits is refused with the usage it saw', async () => {
  const f = await fixture();
  try {
    await quotaWith(f.plain, '2', '1');
    const client = racingClient(f.plain, 1);
    await assert.rejects(new ResourceQuotaAdmission(client).validate(attrs('a')), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 403);
      assert.equal(e.message, 'configmaps "a" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=2, limited: configmaps=2');
      return true;
    });
  } finally {
    await f.close();
  }
});

test('after three retries the conflict is the answer', async () => {
  const f = await fixture();
  try {
    await quotaWith(f.plain, '100', '0');
    const client = racingClient(f.plain, 10);
    await assert.rejects(new ResourceQuotaAdmission(client).validate(attrs('a')), (e: unknown) => e instanceof ApiError && e.code === 409);
    assert.equal(client.attempts, 4);
  } finally {
    await f.close();
  }
});

test('updates are charged for services and claims only, as kube evaluates them', async () => {
  const f = await fixture();
  try {
    // A status with no usage for configmaps refuses their creates, but not an update.
    await f.plain.create(R.configmaps, 'team', { metadata: { name: 'old' } });
    const created = await f.plain.create(R.quotas, 'team', { metadata: { name: 'q' }, spec: { hard: { configmaps: '5', 'services.nodeports': '1' } } });
    await f.plain.update(R.quotas, 'team', { ...created, status: { hard: { configmaps: '5', 'services.nodeports': '1' }, used: { 'services.nodeports': '0' } } }, 'status');
    const cm = await f.plain.get(R.configmaps, 'team', 'old');
    await f.client.update(R.configmaps, 'team', { ...cm, data: { a: 'b' } });
    await assert.rejects(f.client.create(R.configmaps, 'team', { metadata: { name: 'new' } }), /status unknown for quota: q, resources: configmaps/);
    // A ClusterIP service turned NodePort with two ports asks for two node ports.
    const services = { group: '', version: 'v1', resource: 'services' };
    const svc = await f.client.create(services, 'team', { metadata: { name: 's' }, spec: { ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81 }] } });
    await assert.rejects(
      f.client.update(services, 'team', { ...svc, spec: { ...(svc.spec as J), type: 'NodePort' } }),
      /exceeded quota: q, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1/,
    );
  } finally {
    await f.close();
  }
});
