// Servers after the first of a process start from its bootstrapped store: a test must not
// be able to tell, but for speed. Each file runs in its own process, so the first server
// here makes the snapshot the others start from.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startApiServer, type ApiServerHandle } from './index.js';
import { BootstrapSnapshots } from './bootstrap-snapshot.js';

interface Inventory {
  clusterRoles: string[];
  flowSchemas: string[];
  apiServices: string[];
  serviceAccounts: string[];
}

async function inventory(kc: k8s.KubeConfig): Promise<Inventory> {
  const names = (items: { metadata?: { name?: string; namespace?: string } }[]): string[] =>
    items.map((i) => `${i.metadata?.namespace ?? ''}/${i.metadata?.name ?? ''}`).sort();
  return {
    clusterRoles: names((await kc.makeApiClient(k8s.RbacAuthorizationV1Api).listClusterRole()).items),
    flowSchemas: names(
      ((await kc.makeApiClient(k8s.CustomObjectsApi).listClusterCustomObject({ group: 'flowcontrol.apiserver.k8s.io', version: 'v1beta3', plural: 'flowschemas' })) as { items: { metadata?: { name?: string } }[] }).items,
    ),
    apiServices: names((await kc.makeApiClient(k8s.ApiregistrationV1Api).listAPIService()).items),
    serviceAccounts: names((await kc.makeApiClient(k8s.CoreV1Api).listServiceAccountForAllNamespaces()).items),
  };
}

describe('servers after the first start from its bootstrap', () => {
  let first: ApiServerHandle;
  let second: ApiServerHandle;
  before(async () => {
    first = await startApiServer();
    // The first server's own objects come after the snapshot and stay its own.
    await first.kubeConfig(k8s.KubeConfig).makeApiClient(k8s.CoreV1Api).createNamespace({ body: { metadata: { name: 'only-in-first' } } });
    second = await startApiServer();
  });
  after(async () => {
    await second?.stop();
    await first?.stop();
  });

  test('the second server holds what a fresh one makes, the controllers included', async () => {
    await first.settled();
    const a = await inventory(first.kubeConfig(k8s.KubeConfig));
    a.serviceAccounts = a.serviceAccounts.filter((n) => !n.startsWith('only-in-first/'));
    const b = await inventory(second.kubeConfig(k8s.KubeConfig));
    assert.ok(a.clusterRoles.length > 20 && a.flowSchemas.length > 10 && a.apiServices.length > 20, JSON.stringify(a).slice(0, 200));
    assert.deepEqual(b, a);
    assert.ok(b.serviceAccounts.includes('kube-system/default'));
  });

  test('objects made in the first server after it started are not in the second', async () => {
    const core = second.kubeConfig(k8s.KubeConfig).makeApiClient(k8s.CoreV1Api);
    await assert.rejects(core.readNamespace({ name: 'only-in-first' }), (e: unknown) => e instanceof k8s.ApiException && e.code === 404);
  });

  test('objects naming the server name the second server', async () => {
    const core = second.kubeConfig(k8s.KubeConfig).makeApiClient(k8s.CoreV1Api);
    const info = await core.readNamespacedConfigMap({ name: 'cluster-info', namespace: 'kube-public' });
    assert.match(info.data?.kubeconfig ?? '', new RegExp(`server: ${second.url.replace(/[.]/g, '\\.')}\\b`));
    const ep = await core.readNamespacedEndpoints({ name: 'kubernetes', namespace: 'default' });
    assert.equal(ep.subsets?.[0]?.ports?.[0]?.port, second.port);
  });

  test('writes in one server are not seen by the other', async () => {
    const kcA = first.kubeConfig(k8s.KubeConfig).makeApiClient(k8s.CoreV1Api);
    const kcB = second.kubeConfig(k8s.KubeConfig).makeApiClient(k8s.CoreV1Api);
    await kcB.deleteNamespacedServiceAccount({ name: 'default', namespace: 'kube-public' });
    const still = await kcA.readNamespacedServiceAccount({ name: 'default', namespace: 'kube-public' });
    assert.equal(still.metadata?.name, 'default');
  });
});

describe('BootstrapSnapshots', () => {
  test('the key ignores the port and nothing else', () => {
    const base = ['--storage-backend=memory', '--compat=kubernetes'];
    assert.equal(BootstrapSnapshots.key([...base, '--secure-port=0'], '/p'), BootstrapSnapshots.key([...base, '--secure-port=6443'], '/p'));
    assert.notEqual(BootstrapSnapshots.key(base, '/p'), BootstrapSnapshots.key(base, '/q'));
    assert.notEqual(BootstrapSnapshots.key(base, '/p'), BootstrapSnapshots.key([...base, '--runtime-config=batch/v1=false'], '/p'));
  });

  test('the first snapshot under a key is kept, without the objects that name a server', () => {
    const s = new BootstrapSnapshots();
    const item = (key: string) => ({ key, value: new Uint8Array(), createRevision: 1, modRevision: 1 });
    s.remember('k', { revision: 9, items: [item('/registry/configmaps/kube-public/cluster-info'), item('/registry/configmaps/kube-public/other'), item('/registry/endpoints/default/kubernetes')] });
    s.remember('k', { revision: 10, items: [] });
    assert.deepEqual(s.get('k')?.items.map((i) => i.key), ['/registry/configmaps/kube-public/other']);
    assert.equal(s.get('k')?.revision, 9);
    assert.equal(s.get('other'), undefined);
  });
});
