import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isApiError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { LoopbackClient } from '../../server/loopback.js';
import { namespaceFinalizer, setFlavor } from '../../naming/index.js';
import { startControllers } from '../index.js';
import { ensureSystemNamespaces } from '../system-namespaces.js';
import { NAMESPACES, NamespaceController } from './controller.js';
import type { NamespaceCondition } from './deleter.js';
import { coreDefinitions, memoryTable, probeStore } from '../../testing/memory-table.js';
import { eventually } from '../../testing/wait.js';

const CM = { group: '', version: 'v1', resource: 'configmaps' };
const admin = { username: 'admin', groups: ['system:masters'] };

async function missing(client: LoopbackClient, r: typeof CM, ns: string, name: string): Promise<true | undefined> {
  try {
    await client.get(r, ns, name);
    return undefined;
  } catch (e) {
    if (isApiError(e) && e.code === 404) return true;
    throw e;
  }
}

function condition(ns: KubeObject, type: string): NamespaceCondition | undefined {
  return ((ns.status as { conditions?: NamespaceCondition[] }).conditions ?? []).find((c) => c.type === type);
}

test('a deleted namespace is emptied, waits for finalizers of its content, then goes away', async () => {
  const { table, serve, close } = memoryTable();
  const client = new LoopbackClient(table, admin);
  // A resource without deletecollection, added once the controller runs: read at the time.
  const errors: unknown[] = [];
  const controller = new NamespaceController({ client, table, contentRemainingDelayMs: 10, backoff: { baseMs: 5, maxMs: 50 }, onError: (e) => errors.push(e) });
  controller.start();
  try {
    await controller.waitForSync();
    const SECRETS = { group: '', version: 'v1', resource: 'secrets' };
    const [secrets, configmaps] = coreDefinitions('secrets', 'configmaps');
    serve({ ...secrets!, verbs: ['create', 'delete', 'get', 'list', 'update', 'watch'] });
    const ROLES = { group: 'rbac.example', version: 'v1', resource: 'roles' };
    // A kind of another group, stored and validated as a plain ConfigMap-like object.
    serve({
      ...configmaps!,
      ...ROLES,
      kind: 'Role',
      singularName: 'role',
      shortNames: [],
      categories: [],
      storage: { group: ROLES.group, resource: ROLES.resource, version: ROLES.version },
    });

    await client.create(NAMESPACES, '', { metadata: { name: 'team' } });
    await client.create(CM, 'team', { metadata: { name: 'plain' } });
    await client.create(CM, 'team', { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    await client.create(SECRETS, 'team', { metadata: { name: 's' } });
    await client.create(ROLES, 'team', { metadata: { name: 'r' } });
    await client.create(CM, 'bystander', { metadata: { name: 'untouched' } });

    const deleting = await client.delete(NAMESPACES, '', 'team');
    assert.ok(deleting?.metadata?.deletionTimestamp, 'the namespace waits for its finalizer');

    const stuck = await eventually(async () => {
      const ns = await client.get(NAMESPACES, '', 'team');
      return condition(ns, 'NamespaceFinalizersRemaining')?.status === 'True' ? ns : undefined;
    }, 'the finalizers condition');
    assert.equal((stuck.status as { phase: string }).phase, 'Terminating');
    assert.deepEqual(
      { ...condition(stuck, 'NamespaceContentRemaining'), lastTransitionTime: undefined },
      { type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: configmaps. has 1 resource instances', lastTransitionTime: undefined },
    );
    assert.equal(condition(stuck, 'NamespaceFinalizersRemaining')?.message, 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances');
    assert.equal(condition(stuck, 'NamespaceDeletionContentFailure')?.reason, 'ContentDeleted');
    assert.ok(await missing(client, CM, 'team', 'plain'));
    assert.ok(await missing(client, SECRETS, 'team', 's'));
    assert.ok(await missing(client, ROLES, 'team', 'r'));
    assert.ok((await client.get(CM, 'team', 'held')).metadata?.deletionTimestamp);
    assert.deepEqual(((await client.get(NAMESPACES, '', 'team')).spec as { finalizers: string[] }).finalizers, [namespaceFinalizer()]);

    // The finalizer's owner finishes: the content goes, then the namespace.
    await client.patch(CM, 'team', 'held', { metadata: { finalizers: null } });
    await eventually(() => missing(client, NAMESPACES, '', 'team'), 'the namespace to disappear');
    assert.ok(await client.get(CM, 'bystander', 'untouched'));
    assert.deepEqual(errors, []);
  } finally {
    await controller.stop();
    await close();
  }
});

test('a namespace without the finalizer, or not being deleted, is left alone', async () => {
  const { table, close } = memoryTable();
  const namespaces = probeStore(table, NAMESPACES);
  const client = new LoopbackClient(table, admin);
  await client.create(NAMESPACES, '', { metadata: { name: 'live' } });
  await client.create(CM, 'live', { metadata: { name: 'c' } });
  const controller = new NamespaceController({ client, table });
  await controller.sync('live');
  await controller.sync('does-not-exist');
  assert.ok(await client.get(CM, 'live', 'c'));
  assert.equal(namespaces.calls['update/finalize'], undefined);
  await close();
});

test('startControllers runs the namespace controller and stops it', async () => {
  const { table, close } = memoryTable();
  const client = new LoopbackClient(table, admin);
  const running = startControllers({ client, table });
  try {
    await client.create(NAMESPACES, '', { metadata: { name: 'short-lived' } });
    await client.delete(NAMESPACES, '', 'short-lived');
    await eventually(() => missing(client, NAMESPACES, '', 'short-lived'), 'the namespace to disappear');
  } finally {
    await running.stop();
    await close();
  }
});

test('ensureSystemNamespaces creates the missing ones, per flavor, once', async () => {
  for (const flavor of ['orch', 'kubernetes'] as const) {
    setFlavor(flavor);
    try {
      const { table, close } = memoryTable();
      const client = new LoopbackClient(table, admin);
      await client.create(NAMESPACES, '', { metadata: { name: 'default' } });
      const prefix = flavor === 'orch' ? 'orch' : 'kube';
      assert.deepEqual(await ensureSystemNamespaces(client), [`${prefix}-system`, `${prefix}-public`, `${prefix}-node-lease`]);
      assert.deepEqual(await ensureSystemNamespaces(client), []);
      const names = (await client.list(NAMESPACES, '')).items.map((n) => n.metadata?.name).sort();
      assert.deepEqual(names, ['default', `${prefix}-node-lease`, `${prefix}-public`, `${prefix}-system`]);
      await close();
    } finally {
      setFlavor('orch');
    }
  }
});
