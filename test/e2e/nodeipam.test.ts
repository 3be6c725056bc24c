// Black-box: node CIDR allocation seen through kubectl. `--simulated-nodes` turns it on with
// the cluster CIDR 10.128.0.0/9; an explicit, too small range leaves a node without one and
// records CIDRNotAvailable on it; a bad mask refuses the start.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { ENTRY_POINT, eventually, Kubectl, kubectlPath, serverUnavailable, startTestServer, type TestServer } from './harness.js';

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
  describe(`node CIDRs of simulated nodes with kubectl (${flavor} flavor)`, { skip }, () => {
    let server: TestServer;
    let kubectl: Kubectl;
    before(async () => {
      server = await startTestServer({ flavor, args: ['--simulated-nodes', '3'] });
      kubectl = new Kubectl(binary!, server.kubeconfigPath);
    });
    after(async () => {
      kubectl?.dispose();
      await server?.stop();
    });

    test('each node has its own /24 of 10.128.0.0/9, and a pod an address in its node\'s', async () => {
      const cidrs = await eventually(async () => {
        const r = await kubectl.run(['get', 'nodes', '-o', 'jsonpath={.items[*].spec.podCIDR}']);
        const list = r.stdout.split(' ').filter((c) => c !== '');
        return list.length === 3 ? list : undefined;
      }, 'three nodes with a podCIDR');
      assert.deepEqual([...cidrs].sort(), ['10.128.0.0/24', '10.128.1.0/24', '10.128.2.0/24']);
      const created = await kubectl.run(['apply', ...(flavor === 'orch' ? ['--validate=false'] : []), '-f', '-'], { input: POD });
      assert.equal(created.code, 0, created.stderr);
      const ip = await eventually(async () => {
        const r = await kubectl.run(['get', 'pod', 'web', '-o', 'jsonpath={.status.phase} {.status.podIP}']);
        return r.stdout.startsWith('Running ') ? r.stdout.slice('Running '.length) : undefined;
      }, 'the pod Running');
      const nodeCIDR = await kubectl.run(['get', 'node', 'node-000001', '-o', 'jsonpath={.spec.podCIDRs[0]}']);
      assert.equal(ip, nodeCIDR.stdout.replace(/0\/24$/, '1'));
    });
  });
}

describe('an exhausted cluster CIDR with kubectl', { skip }, () => {
  let server: TestServer;
  let kubectl: Kubectl;
  before(async () => {
    server = await startTestServer({ flavor: 'kubernetes', args: ['--simulated-nodes', '3', '--allocate-node-cidrs', '--cluster-cidr', '10.244.0.0/23'] });
    kubectl = new Kubectl(binary!, server.kubeconfigPath);
  });
  after(async () => {
    kubectl?.dispose();
    await server?.stop();
  });

  test('two nodes get a CIDR; the third gets the event CIDRNotAvailable', async () => {
    const events = await eventually(async () => {
      const r = await kubectl.run(['get', 'events', '-n', 'default', '--field-selector', 'reason=CIDRNotAvailable', '-o', 'jsonpath={range .items[*]}{.involvedObject.kind}/{.involvedObject.name}: {.message}{"\\n"}{end}']);
      return r.stdout !== '' ? r.stdout : undefined;
    }, 'the CIDRNotAvailable event');
    const [line] = events.trim().split('\n');
    assert.match(line ?? '', /^Node\/(node-00000\d): Node \1 status is now: CIDRNotAvailable$/);
    const cidrs = await kubectl.run(['get', 'nodes', '-o', 'jsonpath={.items[*].spec.podCIDR}']);
    assert.deepEqual(cidrs.stdout.split(' ').filter((c) => c !== '').sort(), ['10.244.0.0/24', '10.244.1.0/24']);
  });
});

test('a node CIDR mask shorter than the cluster CIDR refuses the start', { skip: serverUnavailable() }, () => {
  const r = spawnSync(process.execPath, [ENTRY_POINT, '--storage-backend', 'memory', '--allocate-node-cidrs', '--cluster-cidr', '10.244.0.0/16', '--node-cidr-mask-size', '8'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size/);
});
