// Black-box: `orch-apiserver --simulated-nodes 3` and kubectl (when on PATH), in both naming
// flavors: three Ready nodes, a pod with spec.nodeName Running, its log, exec refused,
// graceful deletion finished.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually, Kubectl, kubectlPath, serverUnavailable, startTestServer, type TestServer } from './harness.js';

const binary = kubectlPath();
const skip = serverUnavailable() ?? (binary ? undefined : 'kubectl is not on PATH');

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: default
spec:
  nodeName: node-000001
  containers:
  - name: app
    image: nginx
`;

for (const flavor of ['orch', 'kubernetes'] as const) {
  describe(`simulated nodes with kubectl (${flavor} flavor)`, { skip }, () => {
    let server: TestServer;
    let kubectl: Kubectl;
    const validate = flavor === 'orch' ? ['--validate=false'] : [];

    before(async () => {
      server = await startTestServer({ flavor, args: ['--simulated-nodes', '3'] });
      kubectl = new Kubectl(binary!, server.kubeconfigPath);
    });
    after(async () => {
      kubectl?.dispose();
      await server?.stop();
    });

    test('kubectl get nodes shows three Ready nodes', async () => {
      const ready = '{range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}';
      const out = await eventually(async () => {
        const r = await kubectl.run(['get', 'nodes', '-o', `jsonpath=${ready}`]);
        return r.stdout === 'node-000000=True\nnode-000001=True\nnode-000002=True\n' ? r.stdout : undefined;
      }, 'three Ready nodes');
      assert.ok(out);
      const ip = await kubectl.run(['get', 'node', 'node-000000', '-o', 'jsonpath={.status.addresses[?(@.type=="InternalIP")].address} {.status.nodeInfo.kubeletVersion}']);
      assert.equal(ip.stdout, '192.0.2.1 v1.27.16');
      // The server's tables (served for kubectl's own group names): STATUS and VERSION columns.
      if (flavor === 'kubernetes') {
        const table = await kubectl.run(['get', 'nodes', '--no-headers']);
        const lines = table.stdout.trim().split('\n');
        assert.equal(lines.length, 3);
        for (const l of lines) assert.match(l, /^node-00000\d\s+Ready\s+<none>\s+\S+\s+v1\.27\.16$/);
      }
    });

    test('a pod with spec.nodeName reaches Running; logs answer; exec is refused; delete completes', async () => {
      const created = await kubectl.run(['apply', ...validate, '-f', '-'], { input: POD });
      assert.equal(created.code, 0, created.stderr);
      const phase = await eventually(async () => {
        const r = await kubectl.run(['get', 'pod', 'web', '-o', 'jsonpath={.status.phase} {.status.podIP} {.status.hostIP}']);
        return r.stdout.startsWith('Running ') ? r.stdout : undefined;
      }, 'the pod Running');
      // The address is from the node's pod CIDR (node IPAM gives simulated nodes a /24 of 10.128.0.0/9).
      assert.match(phase, /^Running 10\.(1[2-9]\d|2[0-5]\d)\.\d+\.\d+ 192\.0\.2\.2$/);
      if (flavor === 'kubernetes') {
        const r = await kubectl.run(['get', 'pods', '-o', 'wide', '--no-headers']);
        assert.match(r.stdout, /^web\s+1\/1\s+Running\s+0\s+\S+\s+10\.\d+\.\d+\.\d+\s+node-000001\s/m);
      }
      const logs = await kubectl.run(['logs', 'web']);
      assert.deepEqual([logs.code, logs.stdout], [0, '']);
      const exec = await kubectl.run(['exec', 'web', '--', 'ls']);
      assert.notEqual(exec.code, 0);
      assert.match(exec.stderr, /simulated node node-000001/);
      const del = await kubectl.run(['delete', 'pod', 'web', '--wait=true', '--timeout=30s']);
      assert.equal(del.code, 0, del.stderr);
      const gone = await kubectl.run(['get', 'pod', 'web']);
      assert.match(gone.stderr, /NotFound/);
    });
  });
}
