// The default policy's reconcile: on a fresh store the objects of one kind are written
// together (the store commits concurrent writes as one transaction), and on a store that
// already holds the policy it writes nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { FakeClient } from '../../testing/fake-client.js';
import { defaultClusterRoleBindings, defaultClusterRoles, defaultRoleBindings, defaultRoles } from './bootstrap-policy.js';
import { reconcilePolicy } from './reconcile.js';

/** Counts the writes in flight at once, each held for one turn of the event loop. */
class CountingClient extends FakeClient {
  inFlight = 0;
  mostInFlight = 0;
  writes = 0;

  private async held<T>(write: () => Promise<T>): Promise<T> {
    this.writes++;
    this.mostInFlight = Math.max(this.mostInFlight, ++this.inFlight);
    try {
      await new Promise((r) => setImmediate(r));
      return await write();
    } finally {
      this.inFlight--;
    }
  }

  override create(r: GroupVersionResource, namespace: string, obj: KubeObject): Promise<KubeObject> {
    return this.held(() => super.create(r, namespace, obj));
  }

  override update(r: GroupVersionResource, namespace: string, obj: KubeObject): Promise<KubeObject> {
    return this.held(() => super.update(r, namespace, obj));
  }
}

const policy = () => ({ clusterRoles: defaultClusterRoles(), clusterRoleBindings: defaultClusterRoleBindings(), roles: defaultRoles(), roleBindings: defaultRoleBindings() });

test('on a fresh store the default objects of one kind are created together, not one write after another', async () => {
  const client = new CountingClient();
  const failed = await reconcilePolicy(client, policy());
  assert.deepEqual(failed, []);
  const wanted = policy();
  assert.equal(client.writes, wanted.clusterRoles.length + wanted.clusterRoleBindings.length + wanted.roles.length + wanted.roleBindings.length);
  assert.ok(client.mostInFlight >= wanted.clusterRoles.length, `at most ${client.mostInFlight} writes were in flight at once`);
});

test('a second reconcile of the stored policy writes nothing', async () => {
  const client = new CountingClient();
  await reconcilePolicy(client, policy());
  const before = client.writes;
  assert.deepEqual(await reconcilePolicy(client, policy()), []);
  assert.equal(client.writes, before);
});

test('one aggregation pass gives chained aggregated roles all their rules, writing each once', async () => {
  const { AggregationController } = await import('./aggregation.js');
  const { rbacResource } = await import('./cache.js');
  const client = new CountingClient();
  const r = rbacResource('clusterroles');
  const aggregated = (name: string, label: string, labels: Record<string, string> = {}) => ({ metadata: { name, labels }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [label]: 'true' } }] } });
  // admin gathers edit's rules, edit gathers view's, view gathers its source's: as the default policy chains them.
  const roles = [
    await client.create(r, '', aggregated('admin', 'to-admin')),
    await client.create(r, '', aggregated('edit', 'to-edit', { 'to-admin': 'true' })),
    await client.create(r, '', aggregated('view', 'to-view', { 'to-edit': 'true' })),
    await client.create(r, '', { metadata: { name: 'source', labels: { 'to-view': 'true' } }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }),
  ];
  const before = client.writes;
  const controller = new AggregationController(client, () => roles);
  controller.enqueue();
  await controller.idle();
  for (const name of ['admin', 'edit', 'view']) {
    assert.deepEqual((await client.get(r, '', name))['rules'], [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], name);
  }
  assert.equal(client.writes - before, 3);
  assert.equal(client.mostInFlight, 3);
});
