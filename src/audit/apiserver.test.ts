// The audit flags on the whole server: a policy file, the log backend (JSON lines, rotation),
// a webhook that is down, and the annotations other parts of the server add.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCA } from '../testing/pki.js';
import { startAuthTestServer, type AuthTestServer } from '../testing/server.js';
import { webhookKubeconfig } from '../testing/https-server.js';
import { eventually } from '../testing/wait.js';

type Ev = { auditID: string; stage: string; level: string; verb: string; objectRef?: Record<string, string>; annotations?: Record<string, string>; requestObject?: unknown; responseObject?: unknown };

const POLICY = `apiVersion: audit.orch.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/readyz*", "/livez*", "/metrics"]
  - level: None
    users: ["system:apiserver"]
  - level: RequestResponse
    resources: [{group: "", resources: ["configmaps"]}]
    namespaces: ["big"]
  - level: Metadata
`;

function readEvents(dir: string, file = 'audit.log'): Ev[] {
  return readFileSync(join(dir, file), 'utf8')
    .split('\n')
    .filter((l) => l)
    .map((l) => JSON.parse(l) as Ev);
}

describe('audit on the whole server', () => {
  let srv: AuthTestServer;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'audit-server-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    // A webhook nobody listens on: every batch fails, every request still succeeds.
    const ca = await createCA('nobody');
    writeFileSync(join(dir, 'hook.kubeconfig'), webhookKubeconfig('https://127.0.0.1:1/', ca));
    srv = await startAuthTestServer([
      `--audit-policy-file=${join(dir, 'policy.yaml')}`,
      `--audit-log-path=${join(dir, 'logs', 'audit.log')}`,
      '--audit-log-maxsize=1',
      '--audit-log-maxbackup=1',
      `--audit-webhook-config-file=${join(dir, 'hook.kubeconfig')}`,
      '--audit-webhook-batch-max-size=1',
      '--audit-webhook-initial-backoff=1ms',
      '--audit-webhook-batch-throttle-qps=1000',
      '--audit-webhook-batch-throttle-burst=1000',
    ]);
  });
  after(() => srv.stop());

  const logDir = (): string => join(dir, 'logs');

  it('logs a Secret at Metadata without its data, and requests succeed while the webhook is down', async () => {
    const r = await srv.request('POST', '/api/v1/namespaces/default/secrets', srv.admin, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, stringData: { password: 'hunter2' }, data: { token: Buffer.from('tok-en').toString('base64') } });
    assert.equal(r.status, 201);
    const id = String(r.headers['audit-id']);
    const events = await eventually(() => {
      const evs = readEvents(logDir()).filter((e) => e.auditID === id);
      return evs.length > 0 && evs;
    }, 'the event in the log');
    assert.deepEqual(events.map((e) => e.stage), ['ResponseComplete']);
    assert.equal(events[0]!.level, 'Metadata');
    assert.equal(events[0]!.objectRef?.name, 'db');
    const text = readFileSync(join(logDir(), 'audit.log'), 'utf8');
    assert.ok(!text.includes('hunter2') && !text.includes(Buffer.from('tok-en').toString('base64')), 'no secret data in the log');
    const get = await srv.request('GET', '/api/v1/namespaces/default/secrets/db', srv.admin);
    assert.equal(get.status, 200);
    await eventually(async () => {
      const m = await srv.request('GET', '/metrics', srv.admin);
      const hit = /apiserver_audit_error_total\{plugin="webhook"\} (\d+)/.exec(m.text);
      return hit !== null && Number(hit[1]) > 0;
    }, 'webhook errors counted');
    assert.ok(!srv.logs.some((l) => l.includes('hunter2')));
  });

  it('names the impersonated user beside the one who asked', async () => {
    const r = await srv.request('GET', '/api/v1/namespaces/default/configmaps', { ...srv.admin, headers: { 'Impersonate-User': 'bob', 'Impersonate-Group': 'devs' } });
    const id = String(r.headers['audit-id']);
    const ev = await eventually(() => readEvents(logDir()).find((e) => e.auditID === id), 'the event');
    const full = ev as Ev & { user: { username: string }; impersonatedUser?: { username: string; groups?: string[] } };
    assert.equal(full.user.username, 'test-admin');
    assert.equal(full.impersonatedUser?.username, 'bob');
    assert.ok(full.impersonatedUser?.groups?.includes('devs'));
  });

  it('marks requests to deprecated versions', async () => {
    const r = await srv.request('GET', '/apis/flowcontrol.apiserver.orch.io/v1beta2/flowschemas', srv.admin);
    assert.equal(r.status, 200);
    const id = String(r.headers['audit-id']);
    const ev = await eventually(() => readEvents(logDir()).find((e) => e.auditID === id), 'the event');
    assert.equal(ev.annotations?.['orch.io/deprecated'], 'true');
    assert.equal(ev.annotations?.['orch.io/removed-release'], '1.29');
    assert.equal(ev.annotations?.['authorization.orch.io/decision'], 'allow');
    assert.match(ev.annotations?.['authorization.orch.io/reason'] ?? '', /.*/);
  });

  it("records PodSecurity's enforced policy and audit-mode violations", async () => {
    const ns = await srv.request('POST', '/api/v1/namespaces', srv.admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'psa', labels: { 'pod-security.orch.io/audit': 'restricted' } } });
    assert.equal(ns.status, 201);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox', securityContext: { privileged: true } }] } };
    const r = await srv.request('POST', '/api/v1/namespaces/psa/pods', srv.admin, pod);
    assert.equal(r.status, 201, r.text);
    const id = String(r.headers['audit-id']);
    const ev = await eventually(() => readEvents(logDir()).find((e) => e.auditID === id), 'the event');
    assert.equal(ev.annotations?.['pod-security.orch.io/enforce-policy'], 'privileged:latest');
    const violations = ev.annotations?.['pod-security.orch.io/audit-violations'] ?? '';
    // Baseline findings come first, as kube-apiserver lists them.
    assert.match(violations, /^would violate PodSecurity "restricted:latest": privileged \(container "c" must not set securityContext.privileged=true\), allowPrivilegeEscalation != false/);
  });

  it('rotates the log past --audit-log-maxsize and keeps --audit-log-maxbackup files', async () => {
    await srv.request('POST', '/api/v1/namespaces', srv.admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'big' } });
    const blob = 'x'.repeat(200 * 1024);
    // Each create logs the object twice (request and response): about 400 KiB an event.
    for (let i = 0; i < 8; i++) {
      const r = await srv.request('POST', '/api/v1/namespaces/big/configmaps', srv.admin, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` }, data: { blob } });
      assert.equal(r.status, 201);
    }
    await eventually(() => readdirSync(logDir()).length === 2 && readdirSync(logDir()), 'one backup kept');
    const files = readdirSync(logDir()).sort();
    assert.match(files[0]!, /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/);
    assert.equal(files[1], 'audit.log');
    for (const f of files) {
      const size = readFileSync(join(logDir(), f)).byteLength;
      assert.ok(size <= 1024 * 1024, `${f} is ${size} bytes`);
      for (const ev of readEvents(logDir(), f)) if (ev.objectRef?.namespace === 'big' && ev.verb === 'create') assert.ok(ev.requestObject && ev.responseObject);
    }
  });
});

describe('audit flags at start-up', () => {
  it('refuses a malformed policy file, naming it and the line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-bad-'));
    const file = join(dir, 'policy.yaml');
    writeFileSync(file, 'apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n  - level: [Metadata\n');
    await assert.rejects(startAuthTestServer([`--audit-policy-file=${file}`, '--audit-log-path=-']), (e: Error) => e.message.includes(file) && /line \d+/.test(e.message));
  });
});
