// Black-box: @kubernetes/client-node against the real server: CRUD, list paging, an
// informer fed by list and watch, and a watch resumed from a resourceVersion.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { eventually, serverUnavailable, startTestServer, type TestServer } from './harness.js';

const skip = serverUnavailable();

function apiCode(e: unknown): number | undefined {
  return e instanceof k8s.ApiException ? e.code : undefined;
}

describe('@kubernetes/client-node', { skip }, () => {
  let server: TestServer;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;

  before(async () => {
    server = await startTestServer({ flavor: 'kubernetes' });
    kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfigPath);
    core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'cn' } } });
  });
  after(async () => {
    assert.equal(await server?.stop(), 0);
  });

  test('create, read, replace, patch (merge and JSON patch) and delete a config map', async () => {
    const created = await core.createNamespacedConfigMap({ namespace: 'cn', body: { metadata: { name: 'c1', labels: { app: 'demo' } }, data: { a: '1' } } });
    assert.equal(created.metadata?.name, 'c1');
    const read = await core.readNamespacedConfigMap({ name: 'c1', namespace: 'cn' });
    assert.deepEqual(read.data, { a: '1' });
    read.data = { a: '2' };
    const replaced = await core.replaceNamespacedConfigMap({ name: 'c1', namespace: 'cn', body: read });
    assert.deepEqual(replaced.data, { a: '2' });
    const merged = await core.patchNamespacedConfigMap(
      { name: 'c1', namespace: 'cn', body: { data: { b: '3' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    assert.deepEqual(merged.data, { a: '2', b: '3' });
    const jsonPatched = await core.patchNamespacedConfigMap(
      { name: 'c1', namespace: 'cn', body: [{ op: 'test', path: '/data/a', value: '2' }, { op: 'remove', path: '/data/a' }] },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch),
    );
    assert.deepEqual(jsonPatched.data, { b: '3' });
    await core.deleteNamespacedConfigMap({ name: 'c1', namespace: 'cn' });
    await assert.rejects(core.readNamespacedConfigMap({ name: 'c1', namespace: 'cn' }), (e: unknown) => apiCode(e) === 404);
  });

  // Paging, the informer and the resumed watch use secrets: nothing in the server creates
  // secrets on its own, whereas the root CA publisher adds a config map to every namespace,
  // at a moment of its choosing.
  test('list paging with limit and continue', async () => {
    await core.createNamespace({ body: { metadata: { name: 'paging' } } });
    for (let i = 0; i < 7; i++) await core.createNamespacedSecret({ namespace: 'paging', body: { metadata: { name: `p${i}` } } });
    const names: string[] = [];
    let cont: string | undefined;
    let pages = 0;
    do {
      const page = await core.listNamespacedSecret({ namespace: 'paging', limit: 3, _continue: cont });
      pages++;
      names.push(...page.items.map((i) => i.metadata!.name!));
      if (page.metadata?._continue) assert.equal(page.metadata.remainingItemCount, 7 - names.length);
      cont = page.metadata?._continue || undefined;
    } while (cont);
    assert.equal(pages, 3);
    assert.deepEqual(names, ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
  });

  test('an informer lists, then follows the watch', async () => {
    await core.createNamespace({ body: { metadata: { name: 'informed' } } });
    await core.createNamespacedSecret({ namespace: 'informed', body: { metadata: { name: 'before' } } });
    const informer = k8s.makeInformer(kc, '/api/v1/namespaces/informed/secrets', () => core.listNamespacedSecret({ namespace: 'informed' }));
    const log: string[] = [];
    informer.on('add', (o) => log.push(`add ${o.metadata?.name}`));
    informer.on('update', (o) => log.push(`update ${o.metadata?.name}`));
    informer.on('delete', (o) => log.push(`delete ${o.metadata?.name}`));
    const errors: unknown[] = [];
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    try {
      await eventually(() => (log.includes('add before') ? true : undefined), 'the initial list');
      await core.createNamespacedSecret({ namespace: 'informed', body: { metadata: { name: 'after' } } });
      await eventually(() => (log.includes('add after') ? true : undefined), 'the watch add');
      await core.patchNamespacedSecret(
        { name: 'after', namespace: 'informed', body: { data: { x: Buffer.from('y').toString('base64') } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await eventually(() => (log.includes('update after') ? true : undefined), 'the watch update');
      await core.deleteNamespacedSecret({ name: 'before', namespace: 'informed' });
      await eventually(() => (log.includes('delete before') ? true : undefined), 'the watch delete');
      assert.deepEqual(informer.list('informed').map((o) => o.metadata?.name), ['after']);
      assert.deepEqual(errors, []);
    } finally {
      await informer.stop();
    }
  });

  test('a watch resumed from a resourceVersion delivers exactly the changes after it', async () => {
    await core.createNamespace({ body: { metadata: { name: 'resume' } } });
    const first = await core.createNamespacedSecret({ namespace: 'resume', body: { metadata: { name: 'r1' } } });
    await core.createNamespacedSecret({ namespace: 'resume', body: { metadata: { name: 'r2' } } });
    await core.deleteNamespacedSecret({ name: 'r1', namespace: 'resume' });
    const watch = new k8s.Watch(kc);
    const events: string[] = [];
    let ended: unknown = 'open';
    const controller = await watch.watch(
      '/api/v1/namespaces/resume/secrets',
      { resourceVersion: first.metadata!.resourceVersion! },
      (type, obj: { metadata?: { name?: string } }) => events.push(`${type} ${obj.metadata?.name}`),
      (err) => (ended = err),
    );
    try {
      await eventually(() => (events.length >= 2 ? true : undefined), 'the replayed events');
      assert.deepEqual(events, ['ADDED r2', 'DELETED r1']);
      assert.equal(ended, 'open');
    } finally {
      controller.abort();
    }
  });
});
