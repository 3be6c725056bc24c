// An operator's test against a real API server, with the public API only: a CRD, a
// reconciler written here (an informer on Widgets that keeps one ConfigMap per Widget, owned
// by it), and the garbage collector removing the ConfigMap once its Widget is gone.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { startApiServer, type ApiServerHandle } from 'orch';

interface Widget extends k8s.KubernetesObject {
  spec?: { color?: string };
}

const WIDGETS = { group: 'example.com', version: 'v1', plural: 'widgets' };

/** The reconciler under test: a ConfigMap `<widget>-config` per Widget, owned by it. */
function startWidgetController(kc: k8s.KubeConfig): k8s.Informer<Widget> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const informer = k8s.makeInformer<Widget>(
    kc,
    '/apis/example.com/v1/widgets',
    () => custom.listClusterCustomObject(WIDGETS) as Promise<k8s.KubernetesListObject<Widget>>,
  );
  const reconcile = async (w: Widget): Promise<void> => {
    const { name, namespace, uid } = w.metadata!;
    const body: k8s.V1ConfigMap = {
      metadata: {
        name: `${name}-config`,
        ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: name!, uid: uid!, controller: true, blockOwnerDeletion: true }],
      },
      data: { color: w.spec?.color ?? '' },
    };
    try {
      await core.createNamespacedConfigMap({ namespace: namespace!, body });
    } catch (e) {
      if (!(e instanceof k8s.ApiException && e.code === 409)) throw e;
      await core.replaceNamespacedConfigMap({ name: `${name}-config`, namespace: namespace!, body });
    }
  };
  informer.on('add', (w) => void reconcile(w));
  informer.on('update', (w) => void reconcile(w));
  return informer;
}

/** Polls `probe` until it returns true (the reconciler works asynchronously). */
async function eventually(probe: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail(`timed out waiting for ${what}`);
}

let server: ApiServerHandle;
let kc: k8s.KubeConfig;
let informer: k8s.Informer<Widget>;

before(async () => {
  server = await startApiServer({ crds: [fileURLToPath(new URL('../../examples/crd', import.meta.url))] });
  kc = server.kubeConfig(k8s.KubeConfig);
  informer = startWidgetController(kc);
  await informer.start();
});

after(async () => {
  await informer.stop();
  await server.stop();
});

test('a Widget gets its ConfigMap, owned by it, and loses it when deleted', async () => {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  await custom.createNamespacedCustomObject({
    ...WIDGETS,
    namespace: 'default',
    body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'blue' }, spec: { color: 'blue' } },
  });

  const read = () => core.readNamespacedConfigMap({ name: 'blue-config', namespace: 'default' });
  await eventually(() => read().then(() => true, () => false), 'the ConfigMap');
  const cm = await read();
  assert.equal(cm.data?.color, 'blue');
  assert.equal(cm.metadata?.ownerReferences?.[0]?.kind, 'Widget');

  // The garbage collector deletes what the Widget owned.
  await custom.deleteNamespacedCustomObject({ ...WIDGETS, namespace: 'default', name: 'blue' });
  const gone = () => read().then(() => false, (e: unknown) => e instanceof k8s.ApiException && e.code === 404);
  await eventually(gone, 'the ConfigMap to be collected');
});
