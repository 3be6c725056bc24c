// Black-box: a user's CustomResourceDefinition through kubectl, in both naming flavors. The
// definition is shaped like a kubebuilder-generated one: a status subresource, scale, printer
// columns, defaults, an enum, a CEL rule and a list-map.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { eventually, Kubectl, kubectlPath, serverUnavailable, startTestServer, type TestServer } from './harness.js';

const binary = kubectlPath();
const skip = serverUnavailable() ?? (binary ? undefined : 'kubectl is not on PATH');

function crdYaml(domain: string, x: string): string {
  return `apiVersion: apiextensions.${domain}/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    listKind: WidgetList
    plural: widgets
    singular: widget
    shortNames: [wd]
    categories: [all]
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - name: Size
      type: string
      jsonPath: .spec.size
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Ready
      type: string
      jsonPath: .status.conditions[?(@.type=="Ready")].status
      priority: 1
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.selector
    schema:
      openAPIV3Schema:
        type: object
        description: A widget.
        properties:
          spec:
            type: object
            description: What the widget should be.
            ${x}-validations:
            - rule: self.replicas <= 10
              message: at most ten replicas
            properties:
              size:
                type: string
                enum: [small, large]
                default: small
              replicas:
                type: integer
                minimum: 0
                default: 1
              ports:
                type: array
                ${x}-list-type: map
                ${x}-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    port: {type: integer}
          status:
            type: object
            properties:
              replicas: {type: integer}
              selector: {type: string}
              conditions:
                type: array
                items:
                  type: object
                  properties:
                    type: {type: string}
                    status: {type: string}
`;
}

function widget(name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default' }, spec });
}

for (const flavor of ['orch', 'kubernetes'] as const) {
  describe(`custom resources through kubectl (${flavor} flavor)`, { skip }, () => {
    let server: TestServer;
    let kubectl: Kubectl;
    const validate = flavor === 'orch' ? ['--validate=false'] : [];
    const domain = flavor === 'orch' ? 'orch.io' : 'k8s.io';
    const x = flavor === 'orch' ? 'x-orch' : 'x-kubernetes';

    before(async () => {
      server = await startTestServer({ flavor });
      kubectl = new Kubectl(binary!, server.kubeconfigPath);
    });
    after(async () => {
      kubectl?.dispose();
      assert.equal(await server?.stop(), 0);
    });

    test('apply the definition and wait until it is established', async () => {
      const applied = await kubectl.run(['apply', '-f', '-', ...validate], { input: crdYaml(domain, x) });
      assert.equal(applied.code, 0, applied.stderr);
      assert.match(applied.stdout, /customresourcedefinition.* created/);
      const waited = await kubectl.run(['wait', '--for', 'condition=established', '--timeout=20s', 'crd/widgets.example.com']);
      assert.equal(waited.code, 0, waited.stderr);
      const crd = await kubectl.run(['get', 'crd', 'widgets.example.com', '-o', 'json']);
      const status = (JSON.parse(crd.stdout) as { status: { acceptedNames: { kind: string }; storedVersions: string[] } }).status;
      assert.equal(status.acceptedNames.kind, 'Widget');
      assert.deepEqual(status.storedVersions, ['v1']);
    });

    test('create a custom resource, defaults filled, unknown fields pruned', async () => {
      await eventually(async () => {
        const r = await kubectl.run(['api-resources', '--api-group=example.com', '-o', 'name']);
        return r.code === 0 && r.stdout.includes('widgets.example.com') ? true : undefined;
      }, 'widgets in discovery');
      const created = await kubectl.run(['create', '-f', '-', '--validate=false'], { input: widget('w1', { replicas: 2, unknown: 'x' }) });
      assert.equal(created.code, 0, created.stderr);
      assert.equal(created.stdout.trim(), 'widget.example.com/w1 created');
      const got = await kubectl.run(['get', 'widget', 'w1', '-o', 'yaml']);
      assert.equal(got.code, 0, got.stderr);
      const obj = parse(got.stdout) as { spec: Record<string, unknown>; metadata: { generation: number } };
      assert.deepEqual(obj.spec, { replicas: 2, size: 'small' });
      assert.equal(obj.metadata.generation, 1);
    });

    test('get with printer columns, short name and category', async () => {
      const all = await kubectl.run(['get', 'all', '-n', 'default']);
      assert.equal(all.code, 0, all.stderr);
      assert.match(all.stdout, /widget\.example\.com\/w1/);
      const table = await kubectl.run(['get', 'wd']);
      assert.equal(table.code, 0, table.stderr);
      // kubectl asks for Tables of the stock meta group, which the orch flavor names apart:
      // there it prints its own NAME and AGE columns.
      if (flavor === 'orch') return assert.match(table.stdout, /^NAME\s+AGE\nw1\s+/);
      // Declared columns replace the default Age column, as in Kubernetes.
      assert.match(table.stdout, /^NAME\s+SIZE\s+REPLICAS\n/);
      assert.match(table.stdout, /\nw1\s+small\s+2\n/);
      const wide = await kubectl.run(['get', 'widgets', '-o', 'wide']);
      assert.match(wide.stdout, /^NAME\s+SIZE\s+REPLICAS\s+READY\n/);
    });

    test('schema and CEL violations are refused and nothing is stored', async () => {
      const badEnum = await kubectl.run(['create', '-f', '-', '--validate=false'], { input: widget('w2', { size: 'huge' }) });
      assert.notEqual(badEnum.code, 0);
      assert.match(badEnum.stderr, /spec\.size: Unsupported value: "huge": supported values: "small", "large"/);
      const badRule = await kubectl.run(['create', '-f', '-', '--validate=false'], { input: widget('w3', { replicas: 11 }) });
      assert.notEqual(badRule.code, 0);
      assert.match(badRule.stderr, /at most ten replicas/);
      const list = await kubectl.run(['get', 'widgets', '-o', 'name']);
      assert.equal(list.stdout.trim(), 'widget.example.com/w1');
    });

    test('scale, then status through the subresource', async () => {
      const scaled = await kubectl.run(['scale', 'widget/w1', '--replicas=5']);
      assert.equal(scaled.code, 0, scaled.stderr);
      const got = await kubectl.run(['get', 'widget', 'w1', '-o', 'jsonpath={.spec.replicas} {.metadata.generation}']);
      assert.equal(got.stdout, '5 2');
      const patched = await kubectl.run(['patch', 'widget', 'w1', '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":5,"conditions":[{"type":"Ready","status":"True"}]}}']);
      assert.equal(patched.code, 0, patched.stderr);
      const status = await kubectl.run(['get', 'widget', 'w1', '-o', 'jsonpath={.status.conditions[0].status}']);
      assert.equal(status.stdout, 'True');
      if (flavor === 'orch') return;
      const wide = await kubectl.run(['get', 'widget', 'w1', '-o', 'wide']);
      assert.match(wide.stdout, /\nw1\s+small\s+5\s+True\n/);
    });

    test('server-side apply merges a list-map by its keys between managers', async () => {
      const a = await kubectl.run(['apply', '--server-side', '--field-manager=a', '-f', '-'], { input: widget('w1', { ports: [{ name: 'http', port: 80 }] }) });
      assert.equal(a.code, 0, a.stderr);
      const b = await kubectl.run(['apply', '--server-side', '--field-manager=b', '-f', '-'], { input: widget('w1', { ports: [{ name: 'https', port: 443 }] }) });
      assert.equal(b.code, 0, b.stderr);
      const got = await kubectl.run(['get', 'widget', 'w1', '-o', 'jsonpath={.spec.ports[*].name}']);
      assert.equal(got.stdout, 'http https');
      const conflict = await kubectl.run(['apply', '--server-side', '--field-manager=b', '-f', '-'], { input: widget('w1', { ports: [{ name: 'http', port: 8080 }] }) });
      assert.notEqual(conflict.code, 0);
      assert.match(conflict.stderr, /conflict/i);
    });

    test('explain reads the published schema', { skip: flavor === 'orch' ? 'kubectl explain needs the stock OpenAPI groups' : undefined }, async () => {
      const explained = await kubectl.run(['explain', 'widgets.spec']);
      assert.equal(explained.code, 0, explained.stderr);
      assert.match(explained.stdout, /What the widget should be\./);
      assert.match(explained.stdout, /replicas\s+<integer>/);
    });

    test('deleting the definition deletes its custom resources, then itself', async () => {
      const deleted = await kubectl.run(['delete', 'crd', 'widgets.example.com', '--timeout=30s']);
      assert.equal(deleted.code, 0, deleted.stderr);
      const gone = await kubectl.run(['get', 'crd', 'widgets.example.com']);
      assert.notEqual(gone.code, 0);
      assert.match(gone.stderr, /NotFound|not found/);
      await eventually(async () => {
        const r = await kubectl.run(['api-resources', '--api-group=example.com', '-o', 'name']);
        return r.code === 0 && !r.stdout.includes('widgets') ? true : undefined;
      }, 'widgets gone from discovery');
    });
  });
}
