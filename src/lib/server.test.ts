// The library entry point, black-box through @kubernetes/client-node as a user's test would
// drive it: options checked by name, definitions awaited, seeding, credentials, webhooks.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { FakeClock, startApiServer, type ApiServerHandle } from './index.js';
import { createStorage } from '../storage/index.js';
import { eventually } from '../testing/wait.js';

const crd = (plural: string, kind: string, group = 'example.com'): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.${group}
spec:
  group: ${group}
  names: { kind: ${kind}, plural: ${plural}, singular: ${plural.replace(/s$/, '')}, listKind: ${kind}List }
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: { type: object, properties: { size: { type: integer } } }
`;

function apiCode(e: unknown): number | undefined {
  return e instanceof k8s.ApiException ? e.code : undefined;
}

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'orch-lib-test-'));
  writeFileSync(join(dir, 'widgets.yaml'), `---\n${crd('widgets', 'Widget')}---\n# a kustomization beside them is not a definition\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: ignored }\n`);
  writeFileSync(join(dir, 'seed.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata: { name: seeded }\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: from-file, namespace: seeded }\ndata: { a: "1" }\n');
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('bad input fails before anything starts, naming the option or file', () => {
  test('an unknown option', async () => {
    await assert.rejects(startApiServer({ storag: 'memory' } as never), /startApiServer: unknown option "storag"/);
  });
  test('an ill-typed option', async () => {
    await assert.rejects(startApiServer({ storage: 'disk' } as never), /option "storage" must be one of "memory", "sqlite", "etcd", not "disk"/);
    await assert.rejects(startApiServer({ storage: 'etcd' }), /storage "etcd" needs option "etcd.servers"/);
    await assert.rejects(startApiServer({ port: -1 }), /option "port"/);
    await assert.rejects(startApiServer({ clock: {} as never }), /option "clock" must be a Clock/);
    await assert.rejects(startApiServer({ console: 'yes' } as never), /option "console" must be a boolean/);
  });
  test('an unreadable CRD path', async () => {
    const missing = join(dir, 'nope.yaml');
    await assert.rejects(startApiServer({ crds: [missing] }), (e: Error) => e.message.includes('option "crds"') && e.message.includes(missing));
  });
  test('a CRD file that is not YAML', async () => {
    mkdirSync(join(dir, 'broken'), { recursive: true });
    const bad = join(dir, 'broken', 'bad.yaml');
    writeFileSync(bad, 'kind: [unclosed\n');
    await assert.rejects(startApiServer({ crds: [bad] }), (e: Error) => e.message.includes(bad));
  });
});

describe('a server with definitions and seeded objects', () => {
  let server: ApiServerHandle;
  let kc: k8s.KubeConfig;
  before(async () => {
    server = await startApiServer({
      crds: [dir],
      objects: [join(dir, 'seed.yaml'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'inline', namespace: 'seeded' } }],
    });
    kc = server.kubeConfig(k8s.KubeConfig);
  });
  after(() => server.stop());

  test('the custom resource is served as soon as startApiServer resolves', async () => {
    const co = kc.makeApiClient(k8s.CustomObjectsApi);
    const body = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 3 } };
    await co.createNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets', body });
    const got = (await co.getNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets', name: 'w1' })) as { spec: unknown };
    assert.deepEqual(got.spec, { size: 3 });
  });

  test('objects from files and from values are created in order; other documents of a CRD directory are not', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const names = (await core.listNamespacedConfigMap({ namespace: 'seeded' })).items.map((c) => c.metadata?.name).filter((n) => n !== 'kube-root-ca.crt');
    assert.deepEqual(names.sort(), ['from-file', 'inline']);
    await assert.rejects(core.readNamespacedConfigMap({ name: 'ignored', namespace: 'default' }), (e: unknown) => apiCode(e) === 404);
  });

  test('the console is off unless asked for', () => {
    assert.equal(server.consoleUrl, undefined);
    assert.ok(server.logs.every((l) => !l.includes('/ui/')));
  });

  test('the kubeconfig YAML, the file and the plain options reach the same server as admin', async () => {
    const fromYaml = new k8s.KubeConfig();
    fromYaml.loadFromString(server.kubeconfig);
    assert.equal(fromYaml.getCurrentCluster()?.server, server.url);
    const path = server.kubeconfigPath;
    const fromFile = new k8s.KubeConfig();
    fromFile.loadFromFile(path);
    const ns = await fromFile.makeApiClient(k8s.CoreV1Api).readNamespace({ name: 'seeded' });
    assert.equal(ns.metadata?.name, 'seeded');
    assert.equal(server.kubeConfig().clusters[0]?.server, server.url);
    assert.match(server.ca, /BEGIN CERTIFICATE/);
  });

  test('clientFor mints a user that RBAC judges', async () => {
    const alice = await server.clientFor({ user: 'alice', groups: ['devs'] });
    const asAlice = alice.kubeConfig(k8s.KubeConfig).makeApiClient(k8s.CoreV1Api);
    await assert.rejects(asAlice.listNamespacedConfigMap({ namespace: 'seeded' }), (e: unknown) => apiCode(e) === 403);
    const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    await rbac.createNamespacedRoleBinding({
      namespace: 'seeded',
      body: {
        metadata: { name: 'devs-view' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'devs' }],
      },
    });
    let listed = false;
    for (let i = 0; i < 200 && !listed; i++) {
      try {
        await asAlice.listNamespacedConfigMap({ namespace: 'seeded' });
        listed = true;
      } catch (e) {
        if (apiCode(e) !== 403) throw e;
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    assert.ok(listed, 'the group binding lets alice list');
  });

  test('a webhook served by the test process is called and can deny', async () => {
    const hook = await server.installWebhook({
      name: 'deny-red',
      rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }],
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'seeded' } },
      handler: (req) => {
        const labels = (req.object?.metadata as { labels?: Record<string, string> } | undefined)?.labels ?? {};
        return labels.color === 'red' ? { allowed: false, status: { code: 403, message: 'no red ones' } } : { allowed: true };
      },
    });
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await assert.rejects(
      core.createNamespacedConfigMap({ namespace: 'seeded', body: { metadata: { name: 'red', labels: { color: 'red' } } } }),
      (e: unknown) => apiCode(e) === 403 && String((e as Error).message).includes('no red ones'),
    );
    await core.createNamespacedConfigMap({ namespace: 'seeded', body: { metadata: { name: 'blue', labels: { color: 'blue' } } } });
    assert.deepEqual(
      hook.requests.map((r) => r.name),
      ['red', 'blue'],
    );
    await hook.stop();
  });

  test('settled() resolves once the controllers are idle', async () => {
    await server.settled({ timeoutMs: 5000 });
  });
});

test('a definition that never becomes Established fails with its conditions, within the bound', async () => {
  const clash = join(dir, 'clash');
  rmSync(clash, { recursive: true, force: true });
  mkdirSync(clash);
  // Two definitions of one group claim the kind Widget: the second's names are not accepted.
  writeFileSync(join(clash, 'a.yaml'), crd('widgets', 'Widget', 'clash.example.com'));
  writeFileSync(join(clash, 'b.yaml'), crd('gadgets', 'Widget', 'clash.example.com'));
  const t0 = performance.now();
  await assert.rejects(startApiServer({ crds: [clash], crdTimeoutMs: 300 }), (e: Error) => {
    assert.match(e.message, /CustomResourceDefinition "gadgets.clash.example.com" did not become Established within 300 ms/);
    assert.match(e.message, /NamesAccepted=False/);
    return true;
  });
  assert.ok(performance.now() - t0 < 5000);
});

test('several servers at once, each with its own state; the kubeconfig file goes with stop()', async () => {
  const clock = new FakeClock();
  const [a, b] = await Promise.all([startApiServer({ clock }), startApiServer()]);
  try {
    assert.notEqual(a.port, b.port);
    assert.equal(a.clock, clock);
    const ca = a.kubeConfig(k8s.KubeConfig).makeApiClient(k8s.CoreV1Api);
    const cb = b.kubeConfig(k8s.KubeConfig).makeApiClient(k8s.CoreV1Api);
    await ca.createNamespace({ body: { metadata: { name: 'only-in-a' } } });
    await assert.rejects(cb.readNamespace({ name: 'only-in-a' }), (e: unknown) => apiCode(e) === 404);
    // The flavor is process-wide: a server of the other one is refused while these run.
    await assert.rejects(startApiServer({ flavor: 'orch' }), /a server of flavor "kubernetes" is running in this process/);
  } finally {
    const path = a.kubeconfigPath;
    assert.ok(existsSync(path));
    await Promise.all([a.stop(), b.stop()]);
    assert.ok(!existsSync(path));
  }
  // With both stopped, the other flavor may start.
  const orch = await startApiServer({ flavor: 'orch' });
  assert.equal(orch.kubeConfig().clusters[0]?.name, 'orch');
  await orch.stop();
});

test('a restart on a SQLite data directory writes nothing: its start-up finds everything in place', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'orch-lib-restart-'));
  const stored = async (): Promise<number> => {
    const storage = await createStorage({ backend: 'sqlite', dataDir });
    try {
      return await storage.revision();
    } finally {
      await storage.close();
    }
  };
  try {
    // The same port each time: the default Service's endpoints name it.
    let port = 0;
    const run = async (): Promise<number> => {
      const server = await startApiServer({ storage: 'sqlite', dataDir, port });
      port = server.port;
      try {
        await server.settled();
        // The availability controller, which settled() does not count, has marked every APIService.
        const kc = server.kubeConfig(k8s.KubeConfig);
        const apiServices = kc.makeApiClient(k8s.ApiregistrationV1Api);
        await eventually(async () => (await apiServices.listAPIService()).items.every((a) => a.status?.conditions?.some((c) => c.type === 'Available')), 'every APIService marked');
        // A consistent list answers at the store's current revision.
        return Number((await kc.makeApiClient(k8s.CoreV1Api).listNamespace()).metadata?.resourceVersion);
      } finally {
        await server.stop();
      }
    };
    await run();
    const before = await stored();
    assert.ok(before > 0);
    assert.equal(await run(), before);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
