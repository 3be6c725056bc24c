// The pod and node plugins through the whole server: node credentials (client certificates
// O=system:nodes, CN=system:node:<name>) against NodeRestriction, and PodNodeSelector with
// its configuration file.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startAuthTestServer } from '../testing/server.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

const merge = { 'Content-Type': 'application/merge-patch+json' };

test('NodeRestriction and PodNodeSelector in the running server', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-admpod-'));
  const selectorFile = join(dir, 'podnodeselector.yaml');
  writeFileSync(selectorFile, 'podNodeSelectorPluginConfig:\n  clusterDefaultNodeSelector: "pool=general"\n  fenced: "env=prod,disk=ssd"\n');
  const configFile = join(dir, 'admission.yaml');
  writeFileSync(
    configFile,
    'apiVersion: apiserver.config.orch.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodNodeSelector\n  path: podnodeselector.yaml\n',
  );
  const s = await startAuthTestServer(['--enable-admission-plugins=NodeRestriction,PodNodeSelector', `--admission-control-config-file=${configFile}`]);
  try {
    assert.ok(s.running.url);
    for (const name of ['n1', 'n2']) assert.equal((await s.request('POST', '/api/v1/nodes', s.admin, { metadata: { name } })).status, 201);
    const n1 = await s.user('system:node:n1', 'system:nodes');

    const other = await s.request('PATCH', '/api/v1/nodes/n2', { ...n1, headers: merge }, { metadata: { labels: { stolen: 'yes' } } });
    assert.equal(other.status, 403, other.text);
    assert.equal(other.json.message, 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
    assert.equal(other.json.reason, 'Forbidden');

    const own = await s.request('PATCH', '/api/v1/nodes/n1', { ...n1, headers: merge }, { metadata: { labels: { 'orch.io/arch': 'arm64', team: 'a' } } });
    assert.equal(own.status, 200, own.text);
    const fenced = await s.request('PATCH', '/api/v1/nodes/n1', { ...n1, headers: merge }, { metadata: { labels: { 'node-restriction.orch.io/tier': 'gold' } } });
    assert.equal(fenced.status, 403, fenced.text);
    assert.equal(fenced.json.message, 'nodes "n1" is forbidden: is not allowed to modify labels: node-restriction.orch.io/tier');
    const taints = await s.request('PATCH', '/api/v1/nodes/n1', { ...n1, headers: merge }, { spec: { taints: [{ key: 'mine', effect: 'NoSchedule' }] } });
    assert.equal(taints.status, 403, taints.text);
    assert.match(String(taints.json.message), /node "n1" is not allowed to modify taints/);
    // The administrator is not restricted.
    assert.equal((await s.request('PATCH', '/api/v1/nodes/n2', { ...s.admin, headers: merge }, { metadata: { labels: { a: 'b' } } })).status, 200);

    // PodNodeSelector: the namespace annotation, the cluster default and the whitelist.
    const ns = (name: string, annotations: Record<string, string> = {}) => s.request('POST', '/api/v1/namespaces', s.admin, { metadata: { name, annotations } });
    assert.equal((await ns('fenced', { 'scheduler.alpha.orch.io/node-selector': 'env=prod' })).status, 201);
    assert.equal((await ns('plain')).status, 201);
    const pod = (name: string, nodeSelector?: Record<string, string>) => ({
      metadata: { name },
      spec: { containers: [{ name: 'a', image: 'nginx' }], ...(nodeSelector ? { nodeSelector } : {}) },
    });
    const created = await s.request('POST', '/api/v1/namespaces/fenced/pods', s.admin, pod('ok', { disk: 'ssd' }));
    assert.equal(created.status, 201, created.text);
    assert.deepEqual((created.json.spec as Record<string, unknown>).nodeSelector, { env: 'prod', disk: 'ssd' });
    const conflict = await s.request('POST', '/api/v1/namespaces/fenced/pods', s.admin, pod('bad', { env: 'dev' }));
    assert.equal(conflict.status, 403, conflict.text);
    assert.equal(conflict.json.message, 'pods "bad" is forbidden: pod node label selector conflicts with its namespace node label selector');
    const outside = await s.request('POST', '/api/v1/namespaces/fenced/pods', s.admin, pod('gpu', { gpu: 'yes' }));
    assert.equal(outside.status, 403, outside.text);
    assert.equal(outside.json.message, 'pods "gpu" is forbidden: pod node label selector labels conflict with its namespace whitelist');
    const defaulted = await s.request('POST', '/api/v1/namespaces/plain/pods', s.admin, pod('d'));
    assert.equal(defaulted.status, 201, defaulted.text);
    assert.deepEqual((defaulted.json.spec as Record<string, unknown>).nodeSelector, { pool: 'general' });
  } finally {
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a malformed plugin configuration refuses the start', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-admpod-'));
  const configFile = join(dir, 'admission.yaml');
  writeFileSync(
    configFile,
    'apiVersion: apiserver.config.orch.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodTolerationRestriction\n  configuration:\n    apiVersion: podtolerationrestriction.admission.orch.io/v1\n    kind: Configuration\n    whitelist: [{operator: Sometimes}]\n',
  );
  try {
    await assert.rejects(
      startAuthTestServer(['--enable-admission-plugins=PodTolerationRestriction', `--admission-control-config-file=${configFile}`]),
      /PodTolerationRestriction configuration: whitelist\[0\]\.operator: Unsupported value: "Sometimes"/,
    );
    await assert.rejects(startAuthTestServer(['--enable-admission-plugins=SecurityContextDeny']), /requires the SecurityContextDeny feature gate to be enabled/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
