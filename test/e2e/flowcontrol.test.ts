// Black-box: kubectl against the real binary sees API priority and fairness at work: the
// bootstrap FlowSchemas and PriorityLevelConfigurations in the flavor's names, the debug dump
// through `kubectl get --raw`, and `--enable-priority-and-fairness=false` turning it off.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually, Kubectl, kubectlPath, serverUnavailable, startTestServer, type TestServer } from './harness.js';

const binary = kubectlPath();
const skip = serverUnavailable() ?? (binary ? undefined : 'kubectl is not on PATH');

for (const flavor of ['orch', 'kubernetes'] as const) {
  describe(`priority and fairness with kubectl (${flavor} flavor)`, { skip }, () => {
    let server: TestServer;
    let kubectl: Kubectl;
    const domain = flavor === 'orch' ? 'orch.io' : 'kubernetes.io';
    const systemNs = flavor === 'orch' ? 'orch-system' : 'kube-system';

    before(async () => {
      server = await startTestServer({ flavor });
      kubectl = new Kubectl(binary!, server.kubeconfigPath);
    });
    after(async () => {
      kubectl?.dispose();
      await server?.stop();
    });

    test('kubectl get flowschemas and prioritylevelconfigurations lists the bootstrap configuration', async () => {
      const fs = await eventually(async () => {
        const r = await kubectl.run(['get', 'flowschemas', '-o', 'json']);
        const items = r.code === 0 ? (JSON.parse(r.stdout) as { items: { metadata: { name: string; annotations?: Record<string, string> }; spec: unknown }[] }).items : [];
        return items.length === 13 ? items : undefined;
      }, 'the 13 bootstrap FlowSchemas');
      const sa = fs.find((o) => o.metadata.name === 'kube-system-service-accounts')!;
      assert.equal(sa.metadata.annotations?.[`apf.${domain}/autoupdate-spec`], 'true');
      assert.match(JSON.stringify(sa.spec), new RegExp(`"namespace":"${systemNs}"`));
      const table = await kubectl.run(['get', 'prioritylevelconfigurations']);
      assert.equal(table.code, 0, table.stderr);
      // kubectl asks for a meta.k8s.io Table, which only the kubernetes flavor serves.
      if (flavor === 'orch') return;
      assert.match(table.stdout, /^global-default\s+Limited\s+20\s+128\s+6\s+50\s/m);
      assert.match(table.stdout, /^exempt\s+Exempt\s+<none>\s+<none>\s+<none>\s+<none>\s/m);
    });

    test('kubectl get --raw reads the debug dump', async () => {
      const r = await kubectl.run(['get', '--raw', '/debug/api_priority_and_fairness/dump_priority_levels']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^PriorityLevelName, +ActiveQueues,/);
      assert.match(r.stdout, /^workload-low, +\d+, +(true|false), +false,/m);
    });
  });
}

describe('priority and fairness turned off', { skip }, () => {
  test('--enable-priority-and-fairness=false: no configuration is written and the dumps are not served', async () => {
    const server = await startTestServer({ args: ['--enable-priority-and-fairness=false'] });
    const kubectl = new Kubectl(binary!, server.kubeconfigPath);
    try {
      const r = await kubectl.run(['get', 'flowschemas', '-o', 'name']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim(), '');
      const raw = await kubectl.run(['get', '--raw', '/debug/api_priority_and_fairness/dump_queues']);
      assert.notEqual(raw.code, 0);
    } finally {
      kubectl.dispose();
      await server.stop();
    }
  });

  test('a bad value of the flag refuses the start, naming it', async () => {
    await assert.rejects(startTestServer({ args: ['--enable-priority-and-fairness=maybe'] }), /enable-priority-and-fairness/);
  });
});
