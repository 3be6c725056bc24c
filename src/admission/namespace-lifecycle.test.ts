import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import { LoopbackClient } from '../server/loopback.js';
import { group, setFlavor } from '../naming/index.js';
import { NamespaceLifecycle } from './namespace-lifecycle.js';
import type { AdmissionAttributes, AdmissionOperation } from './types.js';
import { memoryTable, probeStore, type MemoryTable, type StoreProbe } from '../testing/memory-table.js';
import { eventually } from '../testing/wait.js';

const NS = { group: '', version: 'v1', resource: 'namespaces' };
const admin = { username: 'admin', groups: ['system:masters'] };

function attrs(operation: AdmissionOperation, resource: string, kind: string, namespace: string, name: string, object?: KubeObject, resourceGroup = ''): AdmissionAttributes {
  const a: AdmissionAttributes = {
    operation,
    kind: { group: resourceGroup, version: 'v1', kind },
    resource: { group: resourceGroup, version: 'v1', resource },
    subresource: '',
    namespace,
    name,
    user: admin,
    dryRun: false,
    warnings: [],
  };
  if (object) a.object = object;
  return a;
}

const cm = (namespace: string, name: string, op: AdmissionOperation = 'CREATE'): AdmissionAttributes =>
  attrs(op, 'configmaps', 'ConfigMap', namespace, op === 'CREATE' ? '' : name, { metadata: { name } });

function rejects(code: number, message: string, check?: (e: ApiError) => void): (e: unknown) => boolean {
  return (e: unknown) => {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.code, code);
    assert.equal(e.message, message);
    check?.(e);
    return true;
  };
}

const tables: MemoryTable[] = [];
after(() => Promise.all(tables.map((t) => t.close())));

async function setup(): Promise<{ client: LoopbackClient; plugin: NamespaceLifecycle; namespaces: StoreProbe }> {
  const served = memoryTable();
  tables.push(served);
  const { table } = served;
  const namespaces = probeStore(table, NS);
  const client = new LoopbackClient(table, admin);
  await client.create(NS, '', { metadata: { name: 'team' } });
  const plugin = new NamespaceLifecycle(client, { startInformer: true });
  return { client, plugin, namespaces };
}

test('content in a missing namespace is 404; in an active one it is admitted', async () => {
  const { plugin } = await setup();
  try {
    await plugin.admit(cm('team', 'a'));
    await assert.rejects(plugin.admit(cm('nowhere', 'a')), rejects(404, 'namespaces "nowhere" not found', (e) => {
      assert.equal(e.reason, 'NotFound');
      assert.deepEqual(e.status.details, { name: 'nowhere', group: '', kind: 'namespaces' });
    }));
    await assert.rejects(plugin.admit(cm('nowhere', 'a', 'UPDATE')), rejects(404, 'namespaces "nowhere" not found'));
    // Deleting content of a missing namespace and cluster-scoped writes are not its concern.
    await plugin.admit(cm('nowhere', 'a', 'DELETE'));
    await plugin.admit(attrs('CREATE', 'nodes', 'Node', '', '', { metadata: { name: 'n1' } }));
  } finally {
    await plugin.stop();
  }
});

test('a namespace created a moment ago is usable at once (live read on a cache miss)', async () => {
  const { client, plugin, namespaces } = await setup();
  try {
    await plugin.admit(cm('team', 'warm-up'));
    const gets = namespaces.calls.get ?? 0;
    await client.create(NS, '', { metadata: { name: 'fresh' } });
    await plugin.admit(cm('fresh', 'a'));
    // Served from the cache once the informer has it: no further live reads.
    await eventually(() => plugin['informer'].get('', 'fresh'), 'the informer to have the namespace');
    const before = namespaces.calls.get ?? 0;
    await plugin.admit(cm('fresh', 'b'));
    assert.equal(namespaces.calls.get ?? 0, before);
    assert.ok(before > gets);
  } finally {
    await plugin.stop();
  }
});

test('creating in a terminating namespace is 403 with the Kubernetes message and cause; updates pass', async () => {
  const { client, plugin } = await setup();
  try {
    await plugin.admit(cm('team', 'warm-up'));
    // The plugin sees the namespace DELETE, so it will not trust its (possibly stale) cache.
    await plugin.admit(attrs('DELETE', 'namespaces', 'Namespace', '', 'team'));
    await client.delete(NS, '', 'team');
    await assert.rejects(
      plugin.admit(attrs('CREATE', 'configmaps', 'ConfigMap', 'team', '', { metadata: { generateName: 'gen-' } })),
      rejects(403, 'configmaps "gen-" is forbidden: unable to create new content in namespace team because it is being terminated', (e) => {
        assert.equal(e.reason, 'Forbidden');
        assert.deepEqual(e.status.details, {
          name: 'gen-',
          group: '',
          kind: 'configmaps',
          causes: [{ reason: 'NamespaceTerminating', message: 'namespace team is being terminated', field: 'metadata.namespace' }],
        });
      }),
    );
    await plugin.admit(cm('team', 'existing', 'UPDATE'));
  } finally {
    await plugin.stop();
  }
});

test('default and the system and public namespaces may not be deleted, in both flavors', async () => {
  for (const flavor of ['orch', 'kubernetes'] as const) {
    setFlavor(flavor);
    const { plugin } = await setup();
    try {
      const prefix = flavor === 'orch' ? 'orch' : 'kube';
      for (const name of ['default', `${prefix}-system`, `${prefix}-public`]) {
        await assert.rejects(
          plugin.admit(attrs('DELETE', 'namespaces', 'Namespace', '', name)),
          rejects(403, `namespaces "${name}" is forbidden: this namespace may not be deleted`),
        );
      }
      await plugin.admit(attrs('DELETE', 'namespaces', 'Namespace', '', `${prefix}-node-lease`));
      await plugin.admit(attrs('DELETE', 'namespaces', 'Namespace', '', 'team'));
      // Access reviews in a missing namespace are answered, not refused.
      await plugin.admit(attrs('CREATE', 'localsubjectaccessreviews', 'LocalSubjectAccessReview', 'nowhere', '', { metadata: {} }, group('authorization')));
    } finally {
      await plugin.stop();
      setFlavor('orch');
    }
  }
});
