// Black-box: kubectl (when on PATH) against the real server, in both naming flavors. The
// default flavor renames the groups kubectl relies on for protobuf, tables and OpenAPI, so
// there `create -f` runs with --validate=false; the kubernetes flavor gets the full set.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { ApiError } from '../../src/apimachinery/errors.js';
import { group, setFlavor } from '../../src/naming/index.js';
import { eventually, Kubectl, kubectlPath, serverUnavailable, startTestServer, type TestServer } from './harness.js';

const CM = { group: '', version: 'v1', resource: 'configmaps' };
const binary = kubectlPath();
const skip = serverUnavailable() ?? (binary ? undefined : 'kubectl is not on PATH');

function configMap(namespace: string, name: string, data: Record<string, string> = {}): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data });
}

for (const flavor of ['orch', 'kubernetes'] as const) {
  describe(`kubectl (${flavor} flavor)`, { skip }, () => {
    let server: TestServer;
    let kubectl: Kubectl;
    let rbacGroup: string;
    const validate = flavor === 'orch' ? ['--validate=false'] : [];
    const ns = 'kc';
    // The root CA publisher adds this config map to every namespace, the new one included.
    const rootCA = `${flavor === 'orch' ? 'orch' : 'kube'}-root-ca.crt`;

    before(async () => {
      setFlavor(flavor);
      rbacGroup = group('rbac.authorization');
      setFlavor('orch');
      server = await startTestServer({ flavor });
      kubectl = new Kubectl(binary!, server.kubeconfigPath);
      await server.client.create({ group: '', version: 'v1', resource: 'namespaces' }, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      await eventually(
        () => server.client.get(CM, ns, rootCA).catch((e: unknown) => (e instanceof ApiError && e.code === 404 ? undefined : Promise.reject(e))),
        `${rootCA} in ${ns}`,
      );
    });
    after(async () => {
      kubectl?.dispose();
      assert.equal(await server?.stop(), 0);
    });

    test('create -f, then get -o json, yaml and name', async () => {
      const created = await kubectl.run(['create', '-f', '-', ...validate], { input: configMap(ns, 'k1', { a: '1' }) });
      assert.equal(created.code, 0, created.stderr);
      assert.equal(created.stdout.trim(), 'configmap/k1 created');
      const json = await kubectl.run(['get', 'configmap', 'k1', '-n', ns, '-o', 'json']);
      assert.equal(json.code, 0, json.stderr);
      const obj = JSON.parse(json.stdout) as { kind: string; data: Record<string, string>; metadata: { namespace: string } };
      assert.equal(obj.kind, 'ConfigMap');
      assert.deepEqual(obj.data, { a: '1' });
      assert.equal(obj.metadata.namespace, ns);
      const yaml = await kubectl.run(['get', 'configmap', 'k1', '-n', ns, '-o', 'yaml']);
      assert.equal(yaml.code, 0, yaml.stderr);
      assert.deepEqual((parse(yaml.stdout) as { data: unknown }).data, { a: '1' });
      const name = await kubectl.run(['get', 'configmaps', '-n', ns, '-o', 'name']);
      assert.equal(name.code, 0, name.stderr);
      assert.deepEqual(name.stdout.trim().split('\n').sort(), ['configmap/k1', `configmap/${rootCA}`].sort());
      const missing = await kubectl.run(['get', 'configmap', 'nope', '-n', ns]);
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /configmaps "nope" not found/);
    });

    test('label, annotate, patch --type merge and --type json', async () => {
      await server.client.create(CM, ns, JSON.parse(configMap(ns, 'k2', { a: '1' })));
      const label = await kubectl.run(['label', 'configmap', 'k2', '-n', ns, 'tier=web']);
      assert.equal(label.code, 0, label.stderr);
      assert.equal(label.stdout.trim(), 'configmap/k2 labeled');
      const annotate = await kubectl.run(['annotate', 'configmap', 'k2', '-n', ns, 'note=hello']);
      assert.equal(annotate.code, 0, annotate.stderr);
      // kubectl's own wording differs between its releases ("annotate" / "annotated").
      assert.match(annotate.stdout.trim(), /^configmap\/k2 annotated?$/);
      const merge = await kubectl.run(['patch', 'configmap', 'k2', '-n', ns, '--type', 'merge', '-p', '{"data":{"m":"2"}}']);
      assert.equal(merge.code, 0, merge.stderr);
      assert.equal(merge.stdout.trim(), 'configmap/k2 patched');
      const jsonPatch = await kubectl.run(['patch', 'configmap', 'k2', '-n', ns, '--type', 'json', '-p', '[{"op":"replace","path":"/data/a","value":"3"}]']);
      assert.equal(jsonPatch.code, 0, jsonPatch.stderr);
      const obj = await server.client.get(CM, ns, 'k2');
      assert.deepEqual(obj.metadata?.labels, { tier: 'web' });
      assert.equal(obj.metadata?.annotations?.note, 'hello');
      assert.deepEqual(obj.data, { a: '3', m: '2' });
      const selected = await kubectl.run(['get', 'configmaps', '-n', ns, '-l', 'tier=web', '-o', 'name']);
      assert.equal(selected.stdout.trim(), 'configmap/k2');
    });

    test('delete', async () => {
      await server.client.create(CM, ns, JSON.parse(configMap(ns, 'k3')));
      const del = await kubectl.run(['delete', 'configmap', 'k3', '-n', ns]);
      assert.equal(del.code, 0, del.stderr);
      assert.equal(del.stdout.trim(), 'configmap "k3" deleted');
      const after = await kubectl.run(['get', 'configmap', 'k3', '-n', ns]);
      assert.notEqual(after.code, 0);
    });

    test('get --watch reports objects created after it started', async () => {
      const watch = kubectl.spawn(['get', 'configmaps', '-n', ns, '--watch', '--output-watch-events', '-o', 'json']);
      try {
        // kubectl prints the list first, then watches from its resourceVersion: once a listed
        // object is out, a configmap created now is a change the watch must show.
        await eventually(() => (/"type":\s*"ADDED"/.test(watch.output()) ? true : undefined), 'the listed objects', 20_000);
        await server.client.create(CM, ns, JSON.parse(configMap(ns, 'watched')));
        await eventually(() => (/"type":\s*"ADDED",\s*"object":\s*\{[^]*?"name":\s*"watched"/.test(watch.output()) ? true : undefined), 'the created object in the watch output', 20_000);
      } finally {
        watch.child.kill('SIGTERM');
        await watch.exited;
      }
    });

    test('wait --for=delete returns once the object is gone', async () => {
      await server.client.create(CM, ns, JSON.parse(configMap(ns, 'k4')));
      // -v=6 logs each answer: the delete comes once kubectl watches (an object already gone
      // would not test the waiting).
      const wait = kubectl.spawn(['wait', '--for=delete', 'configmap/k4', '-n', ns, '--timeout=30s', '-v=6']);
      await eventually(() => (/watch=true.*200 OK/.test(wait.output()) ? true : undefined), 'kubectl to watch', 20_000);
      assert.equal(wait.child.exitCode, null, 'still waiting while the object exists');
      await server.client.delete(CM, ns, 'k4');
      const code = await wait.exited;
      assert.equal(code, 0, wait.output());
      assert.match(wait.output(), /configmap\/k4 condition met/);
    });

    test('api-resources and api-versions', async () => {
      const resources = await kubectl.run(['api-resources']);
      assert.equal(resources.code, 0, resources.stderr);
      assert.match(resources.stdout, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
      assert.match(resources.stdout, /^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
      assert.ok(resources.stdout.includes(`${rbacGroup}/v1`), 'the flavor names the rbac group');
      const versions = await kubectl.run(['api-versions']);
      assert.equal(versions.code, 0, versions.stderr);
      const lines = versions.stdout.trim().split('\n');
      for (const v of ['v1', 'apps/v1', 'batch/v1', `${rbacGroup}/v1`]) assert.ok(lines.includes(v), `${v} in api-versions`);
    });

    test('get --raw for health', async () => {
      const ready = await kubectl.run(['get', '--raw', '/readyz']);
      assert.equal(ready.code, 0, ready.stderr);
      assert.equal(ready.stdout.trim(), 'ok');
      const live = await kubectl.run(['get', '--raw', '/livez?verbose']);
      assert.equal(live.code, 0, live.stderr);
      assert.match(live.stdout, /^\[\+\]ping ok$/m);
      assert.match(live.stdout, /livez check passed/);
    });

    if (flavor === 'kubernetes') {
      test('server-side tables and typed create commands (protobuf bodies)', async () => {
        const made = await kubectl.run(['create', 'configmap', 'typed', '-n', ns, '--from-literal=a=1', '--from-literal=b=2']);
        assert.equal(made.code, 0, made.stderr);
        const table = await kubectl.run(['get', 'configmaps', 'typed', '-n', ns]);
        assert.equal(table.code, 0, table.stderr);
        assert.match(table.stdout, /^NAME\s+DATA\s+AGE$/m);
        assert.match(table.stdout, /^typed\s+2\s+\S+$/m);
        const nsMade = await kubectl.run(['create', 'namespace', 'typed-ns']);
        assert.equal(nsMade.code, 0, nsMade.stderr);
        const del = await kubectl.run(['delete', 'namespace', 'typed-ns', '--timeout=30s']);
        assert.equal(del.code, 0, del.stderr);
      });

      // Stock kubectl writes the annotation under the Kubernetes domain only.
      test('apply -f, then apply --server-side -f with a changed value', async () => {
        const first = await kubectl.run(['apply', '-f', '-'], { input: configMap(ns, 'migrated', { a: '1', b: '1' }) });
        assert.equal(first.code, 0, first.stderr);
        const second = await kubectl.run(['apply', '--server-side', '-f', '-'], { input: configMap(ns, 'migrated', { a: '2', b: '1' }) });
        assert.equal(second.code, 0, second.stderr);
        assert.equal(second.stdout.trim(), 'configmap/migrated serverside-applied');
        const obj = await server.client.get(CM, ns, 'migrated');
        assert.deepEqual(obj.data, { a: '2', b: '1' });
        const annotation = obj.metadata?.annotations?.['kubectl.kubernetes.io/last-applied-configuration'];
        assert.deepEqual(JSON.parse(annotation ?? 'null'), JSON.parse(configMap(ns, 'migrated', { a: '2', b: '1' })));
        assert.ok(obj.metadata?.managedFields?.some((e) => e.manager === 'kubectl' && e.operation === 'Apply'), JSON.stringify(obj.metadata?.managedFields));
        // Client-side apply reads the annotation the server kept current.
        const third = await kubectl.run(['apply', '-f', '-'], { input: configMap(ns, 'migrated', { a: '3' }) });
        assert.equal(third.code, 0, third.stderr);
        assert.deepEqual((await server.client.get(CM, ns, 'migrated')).data, { a: '3' });
      });
    }
  });
}
