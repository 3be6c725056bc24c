// DenyServiceExternalIPs, NamespaceAutoProvision, NamespaceExists, PersistentVolumeLabel and
// the deprecation warnings, over the real registry with the chain built from flags.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import { fixture, pod, R } from '../testing/admission.js';
import { externalIPsAreSubset } from './deny-service-external-ips.js';
import { policyPluginFactories } from './policy-plugins.js';
import { NamespaceAutoProvision } from './namespace-autoprovision.js';
import type { AdmissionAttributes } from './types.js';
import type { ApiClient } from '../client/types.js';
import { defaultFeatureGate } from '../apimachinery/features.js';

const SVC = { group: '', version: 'v1', resource: 'services' };

function rejectsWith(code: number, message: string): (e: unknown) => boolean {
  return (e: unknown) => {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.code, code);
    assert.equal(e.message, message);
    return true;
  };
}

const service = (name: string, externalIPs?: string[]): KubeObject => ({
  metadata: { name },
  spec: { ports: [{ port: 80 }], ...(externalIPs ? { externalIPs } : {}) },
});

test('externalIPsAreSubset: none is always fine; new addresses only on an update that already had them', () => {
  const cases: [string, string[] | undefined, string[] | undefined, boolean][] = [
    ['create without', undefined, undefined, true],
    ['create with empty list', [], undefined, true],
    ['create with', ['1.2.3.4'], undefined, false],
    ['update keeps', ['1.2.3.4'], ['1.2.3.4', '5.6.7.8'], true],
    ['update drops all', [], ['1.2.3.4'], true],
    ['update adds', ['1.2.3.4', '9.9.9.9'], ['1.2.3.4'], false],
    ['update from none', ['1.2.3.4'], [], false],
  ];
  for (const [name, next, prev, want] of cases) {
    const prevObj = prev === undefined ? undefined : service('s', prev);
    assert.equal(externalIPsAreSubset(service('s', next), prevObj), want, name);
  }
});

test('DenyServiceExternalIPs refuses new external IPs on create and update with kube\'s message', async () => {
  const f = await fixture({ args: ['--enable-admission-plugins=DenyServiceExternalIPs'] });
  try {
    const denied = (name: string) => rejectsWith(403, `services "${name}" is forbidden: use of external IPs is denied by admission control`);
    await assert.rejects(f.client.create(SVC, 'team', service('web', ['1.2.3.4'])), denied('web'));
    await assert.rejects(f.client.get(SVC, 'team', 'web'), (e: unknown) => e instanceof ApiError && e.code === 404);
    const created = await f.client.create(SVC, 'team', service('web'));
    await assert.rejects(f.client.update(SVC, 'team', { ...created, spec: { ...(created.spec as object), externalIPs: ['1.2.3.4'] } }), denied('web'));
    // Addresses set before the plugin was enabled may stay or go.
    const legacy = await f.plain.create(SVC, 'team', service('legacy', ['1.2.3.4', '5.6.7.8']));
    const kept = await f.client.update(SVC, 'team', { ...legacy, spec: { ...(legacy.spec as object), externalIPs: ['5.6.7.8'] } });
    assert.deepEqual((kept.spec as { externalIPs: string[] }).externalIPs, ['5.6.7.8']);
    await assert.rejects(f.client.update(SVC, 'team', { ...kept, spec: { ...(kept.spec as object), externalIPs: ['5.6.7.8', '1.2.3.4'] } }), denied('legacy'));
  } finally {
    await f.close();
  }
});

test('NamespaceExists: 404 for a missing namespace; none of the lifecycle rules', async () => {
  const f = await fixture({ args: ['--enable-admission-plugins=NamespaceExists', '--disable-admission-plugins=NamespaceLifecycle'] });
  try {
    const missing = rejectsWith(404, 'namespaces "ghost" not found');
    await assert.rejects(f.client.create(R.configmaps, 'ghost', { metadata: { name: 'c' } }), missing);
    await f.plain.create(R.namespaces, '', { metadata: { name: 'ghost' } });
    const cm = await f.client.create(R.configmaps, 'ghost', { metadata: { name: 'c' } });
    // A namespace being deleted still exists: NamespaceExists lets content in (NamespaceLifecycle would not).
    await f.plain.delete(R.namespaces, '', 'ghost');
    assert.ok((await f.plain.get(R.namespaces, '', 'ghost')).metadata?.deletionTimestamp);
    assert.equal((await f.client.create(R.configmaps, 'ghost', { metadata: { name: 'c2' } })).metadata?.name, 'c2');
    // Cluster-scoped objects and namespaces themselves are not its business.
    await f.client.create(R.namespaces, '', { metadata: { name: 'fresh' } });
    assert.ok(cm.metadata?.uid);
  } finally {
    await f.close();
  }
});

test('NamespaceAutoProvision creates the missing namespace of a create; dry runs and other verbs create nothing', async () => {
  const f = await fixture({ args: ['--enable-admission-plugins=NamespaceAutoProvision'] });
  try {
    await assert.rejects(f.plain.get(R.namespaces, '', 'auto'), (e: unknown) => e instanceof ApiError && e.code === 404);
    const created = await f.client.create(R.configmaps, 'auto', { metadata: { name: 'c' } });
    assert.equal(created.metadata?.namespace, 'auto');
    assert.equal((await f.plain.get(R.namespaces, '', 'auto')).metadata?.name, 'auto');
    // An existing namespace is left alone.
    await f.client.create(R.configmaps, 'auto', { metadata: { name: 'c2' } });
    // A dry run writes nothing, so the namespace is not made.
    const plugin = new NamespaceAutoProvision(f.plain);
    const attrs = (namespace: string, dryRun: boolean, kind = 'ConfigMap'): AdmissionAttributes => ({
      operation: 'CREATE',
      object: { metadata: { name: 'c' } },
      kind: { group: '', version: 'v1', kind },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      subresource: '',
      namespace,
      name: 'c',
      user: { username: 'u', groups: [] },
      dryRun,
      warnings: [],
    });
    await plugin.admit(attrs('dry', true));
    await assert.rejects(f.plain.get(R.namespaces, '', 'dry'), (e: unknown) => e instanceof ApiError && e.code === 404);
    await plugin.admit(attrs('wet', false));
    assert.equal((await f.plain.get(R.namespaces, '', 'wet')).metadata?.name, 'wet');
    assert.equal(plugin.handles('UPDATE'), false);
    await assert.rejects(f.client.delete(R.configmaps, 'other', 'c'), (e: unknown) => e instanceof ApiError && e.code === 404);
    await assert.rejects(f.plain.get(R.namespaces, '', 'other'), (e: unknown) => e instanceof ApiError && e.code === 404);
  } finally {
    await f.close();
  }
});

test('NamespaceAutoProvision: a namespace created by someone else meanwhile is no error', async () => {
  const f = await fixture({ args: ['--enable-admission-plugins=NamespaceAutoProvision'] });
  try {
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => f.client.create(R.configmaps, 'race', { metadata: { name: `c${i}` } })));
    assert.equal(results.length, 8);
  } finally {
    await f.close();
  }
});

test('PersistentVolumeLabel, AlwaysAdmit and AlwaysDeny log kube\'s deprecation warning; PersistentVolumeLabel admits', async () => {
  const lines: string[] = [];
  const factories = policyPluginFactories({ client: {} as ApiClient, log: (l) => lines.push(l) });
  const ctx = { client: {} as ApiClient, config: {}, features: defaultFeatureGate() };
  for (const name of ['PersistentVolumeLabel', 'AlwaysAdmit', 'AlwaysDeny']) factories[name]!(ctx);
  assert.deepEqual(lines, [
    'admission: PersistentVolumeLabel admission controller is deprecated. Please remove this controller from your configuration files and scripts.',
    'admission: AlwaysAdmit admission controller is deprecated. Please remove this controller from your configuration files and scripts.',
    'admission: AlwaysDeny admission controller is deprecated. Please remove this controller from your configuration files and scripts.',
  ]);
  const f = await fixture({ args: ['--enable-admission-plugins=PersistentVolumeLabel'] });
  try {
    const pv = await f.client.create(R.pvs, '', {
      metadata: { name: 'pv1' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } },
    });
    assert.equal(pv.metadata?.labels, undefined);
    assert.ok(f.chain.enabled.includes('PersistentVolumeLabel'));
    await f.client.create(R.pods, 'team', pod('p'));
  } finally {
    await f.close();
  }
});
