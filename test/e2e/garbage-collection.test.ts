// Black-box, both flavors: `kubectl delete --cascade=background|foreground|orphan` on a
// Deployment owning ConfigMaps, with the garbage collector running in the server binary.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiError } from '../../src/apimachinery/errors.js';
import { eventually, Kubectl, kubectlPath, serverUnavailable, startTestServer, type Flavor, type TestServer } from './harness.js';

const binary = kubectlPath();
const DEPLOYMENTS = { group: 'apps', version: 'v1', resource: 'deployments' };
const CONFIG_MAPS = { group: '', version: 'v1', resource: 'configmaps' };
const skip = serverUnavailable() ?? (binary ? undefined : 'kubectl is not on PATH');

for (const flavor of ['kubernetes', 'orch'] as Flavor[]) {
  describe(`kubectl delete --cascade (${flavor} flavor)`, { skip }, () => {
    let server: TestServer;
    let kubectl: Kubectl;

    before(async () => {
      server = await startTestServer({ flavor });
      kubectl = new Kubectl(binary!, server.kubeconfigPath);
    });

    after(async () => {
      kubectl?.dispose();
      await server?.stop();
    });

    async function ok(args: string[], input?: string): Promise<string> {
      const res = await kubectl.run(args, { input });
      assert.equal(res.code, 0, `kubectl ${args.join(' ')}: ${res.stderr}`);
      return res.stdout;
    }

    /** A Deployment and ConfigMaps it owns, each dependent blocking the owner's deletion or not, with finalizers or not. */
    async function ownerWithDependents(owner: string, dependents: { name: string; block?: boolean; finalizers?: string[] }[]): Promise<string> {
      await ok(['create', 'deployment', owner, '--image=busybox']);
      const uid = await ok(['get', 'deployment', owner, '-o', 'jsonpath={.metadata.uid}']);
      assert.match(uid, /^[0-9a-f-]{36}$/);
      const items = dependents.map((d) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: d.name,
          labels: { owner },
          ...(d.finalizers ? { finalizers: d.finalizers } : {}),
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: owner, uid, ...(d.block ? { blockOwnerDeletion: true } : {}) }],
        },
        data: { k: 'v' },
      }));
      await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
      return uid;
    }

    async function names(kind: string, selector: string): Promise<string[]> {
      const out = await ok(['get', kind, '-l', selector, '-o', 'name']);
      return out.split('\n').filter(Boolean).sort();
    }

    /**
     * Resolves once the collector has handled the events before the call: a Deployment
     * deleted now takes its ConfigMap along, which the collector does only after the events
     * of both its informers (Deployments, ConfigMaps) that came before.
     */
    let markers = 0;
    async function collectorCaughtUp(): Promise<void> {
      const name = `marker-${markers++}`;
      const labels = { marker: name };
      const owner = await server.client.create(DEPLOYMENTS, 'default', {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name },
        spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
      });
      await server.client.create(CONFIG_MAPS, 'default', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: owner.metadata?.uid ?? '' }] },
      });
      await server.client.delete(DEPLOYMENTS, 'default', name, { propagationPolicy: 'Background' });
      const gone = (): Promise<true | undefined> =>
        server.client.get(CONFIG_MAPS, 'default', name).then(
          () => undefined,
          (e: unknown) => (e instanceof ApiError && e.code === 404 ? true : Promise.reject(e)),
        );
      await eventually(gone, `the collector to take ${name}`);
    }

    async function exists(kind: string, name: string): Promise<boolean> {
      const res = await kubectl.run(['get', kind, name, '-o', 'name']);
      if (res.code === 0) return true;
      assert.match(res.stderr, /NotFound/);
      return false;
    }

    test('background: the owner goes at once, its dependents after it', async () => {
      await ownerWithDependents('web-bg', [{ name: 'bg-1' }, { name: 'bg-2', block: true }]);
      const out = await ok(['delete', 'deployment', 'web-bg', '--cascade=background']);
      assert.match(out, /deployment.apps "web-bg" deleted/);
      assert.equal(await exists('deployment', 'web-bg'), false);
      await eventually(async () => (await names('configmaps', 'owner=web-bg')).length === 0 || undefined, 'the dependents collected');
    });

    test('foreground: the owner waits with deletionTimestamp and foregroundDeletion until blocking dependents are gone', async () => {
      await ownerWithDependents('web-fg', [
        { name: 'fg-held', block: true, finalizers: ['example.com/hold'] },
        { name: 'fg-free', block: true },
      ]);
      const out = await ok(['delete', 'deployment', 'web-fg', '--cascade=foreground', '--wait=false']);
      assert.match(out, /deployment.apps "web-fg" deleted/);
      // The held dependent is deleted but stays for its finalizer, and so does the owner.
      await eventually(async () => (await exists('configmap', 'fg-free')) ? undefined : true, 'the unheld dependent collected');
      await eventually(async () => {
        const cm = JSON.parse(await ok(['get', 'configmap', 'fg-held', '-o', 'json'])) as { metadata: { deletionTimestamp?: string } };
        return cm.metadata.deletionTimestamp;
      }, 'the held dependent marked for deletion');
      const owner = JSON.parse(await ok(['get', 'deployment', 'web-fg', '-o', 'json'])) as { metadata: { deletionTimestamp?: string; finalizers?: string[] } };
      assert.ok(owner.metadata.deletionTimestamp, 'the owner carries a deletionTimestamp');
      assert.deepEqual(owner.metadata.finalizers, ['foregroundDeletion']);
      // Still there once the collector has handled every later event: it does not give up on the blocking dependent.
      await collectorCaughtUp();
      assert.equal(await exists('deployment', 'web-fg'), true);
      assert.deepEqual((JSON.parse(await ok(['get', 'deployment', 'web-fg', '-o', 'json'])) as { metadata: { finalizers?: string[] } }).metadata.finalizers, ['foregroundDeletion']);
      await ok(['patch', 'configmap', 'fg-held', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
      await eventually(async () => ((await exists('deployment', 'web-fg')) ? undefined : true), 'the owner gone after its dependents');
      assert.deepEqual(await names('configmaps', 'owner=web-fg'), []);
    });

    test('orphan: the owner goes, its dependents stay without the reference', async () => {
      await ownerWithDependents('web-or', [{ name: 'or-1' }, { name: 'or-2', block: true }]);
      const out = await ok(['delete', 'deployment', 'web-or', '--cascade=orphan']);
      assert.match(out, /deployment.apps "web-or" deleted/);
      assert.equal(await exists('deployment', 'web-or'), false);
      assert.deepEqual(await names('configmaps', 'owner=web-or'), ['configmap/or-1', 'configmap/or-2']);
      for (const name of ['or-1', 'or-2']) {
        assert.equal(await ok(['get', 'configmap', name, '-o', 'jsonpath={.metadata.ownerReferences}']), '', `${name} keeps no reference`);
      }
      // And they stay: the collector, having handled every later event, took nothing.
      await collectorCaughtUp();
      assert.deepEqual(await names('configmaps', 'owner=web-or'), ['configmap/or-1', 'configmap/or-2']);
    });
  });
}
