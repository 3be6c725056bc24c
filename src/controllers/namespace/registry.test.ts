// The namespace controller, the informer and NamespaceLifecycle over the real registry
// (generic stores, the namespaces store, the watch cache, memory storage), through the
// in-process client: the same wiring the server uses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isApiError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { NamespaceLifecycle } from '../../admission/namespace-lifecycle.js';
import { PluginChain } from '../../admission/chain.js';
import { LoopbackClient } from '../../server/loopback.js';
import { buildResourceTable } from '../../registry/index.js';
import { namespaceDefinition, TEST_GROUP, widgetDefinition } from '../../testing/registry.js';
import { createStorage } from '../../storage/index.js';
import { startControllers } from '../index.js';
import { ensureSystemNamespaces } from '../system-namespaces.js';
import { NAMESPACES } from './controller.js';
import { eventually } from '../../testing/wait.js';

const WIDGETS = { group: TEST_GROUP, version: 'v1', resource: 'widgets' };
const admin = { username: 'admin', groups: ['system:masters'] };

test('over the real registry: system namespaces, lifecycle admission and namespace deletion', async () => {
  const storage = await createStorage({ backend: 'memory' });
  const namespaces = namespaceDefinition();
  const table = buildResourceTable([namespaces, widgetDefinition()], storage);
  const plain = new LoopbackClient(table, admin);
  const lifecycle = new NamespaceLifecycle(plain);
  const client = new LoopbackClient(table, admin, { admission: new PluginChain([lifecycle]) });
  await ensureSystemNamespaces(client);
  const running = startControllers({ client, table, onError: (name, err) => assert.fail(`${name}: ${String(err)}`) });
  const missing = async (r: typeof NAMESPACES, ns: string, name: string): Promise<true | undefined> => {
    try {
      await client.get(r, ns, name);
      return undefined;
    } catch (e) {
      if (isApiError(e) && e.code === 404) return true;
      throw e;
    }
  };
  try {
    await assert.rejects(client.delete(NAMESPACES, '', 'default'), (e: unknown) => isApiError(e) && e.code === 403);
    await assert.rejects(client.create(WIDGETS, 'nowhere', { metadata: { name: 'w' } }), (e: unknown) => isApiError(e) && e.code === 404 && e.message === 'namespaces "nowhere" not found');

    await client.create(NAMESPACES, '', { metadata: { name: 'team' } });
    await client.create(WIDGETS, 'team', { metadata: { name: 'plain' }, spec: { size: 1 } });
    await client.create(WIDGETS, 'team', { metadata: { name: 'held', finalizers: ['example.com/hold'] }, spec: { size: 1 } });
    await client.delete(NAMESPACES, '', 'team');
    await assert.rejects(
      client.create(WIDGETS, 'team', { metadata: { name: 'late' }, spec: { size: 1 } }),
      (e: unknown) => isApiError(e) && e.code === 403 && e.message === `widgets.${TEST_GROUP} "late" is forbidden: unable to create new content in namespace team because it is being terminated`,
    );
    await eventually(() => missing(WIDGETS, 'team', 'plain'), 'the plain widget to go');
    const ns = await eventually(async () => {
      const n: KubeObject = await client.get(NAMESPACES, '', 'team');
      const c = (n.status as { conditions?: { type: string; status: string; message: string }[] }).conditions ?? [];
      return c.find((x) => x.type === 'NamespaceContentRemaining' && x.status === 'True') ? n : undefined;
    }, 'the remaining-content condition');
    assert.equal((ns.status as { phase: string }).phase, 'Terminating');
    await client.patch(WIDGETS, 'team', 'held', { metadata: { finalizers: null } });
    await eventually(() => missing(NAMESPACES, '', 'team'), 'the namespace to go');
  } finally {
    await running.stop();
    await lifecycle.stop();
    await table.stop();
    await storage.close();
  }
});
