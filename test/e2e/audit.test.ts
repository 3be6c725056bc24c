// Black-box: the binary started with an audit policy and a log file, driven by kubectl; the
// log holds one JSON event per line, as kube-apiserver writes them (kubernetes flavor: the
// stock audit.k8s.io group and annotation keys).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eventually, Kubectl, kubectlPath, serverUnavailable, startTestServer, type TestServer } from './harness.js';

const binary = kubectlPath();
const skip = serverUnavailable() ?? (binary ? undefined : 'kubectl is not on PATH');

interface Ev {
  apiVersion: string;
  auditID: string;
  stage: string;
  level: string;
  verb: string;
  userAgent?: string;
  user: { username: string };
  objectRef?: { resource?: string; namespace?: string; name?: string };
  responseStatus?: { code: number };
  requestObject?: { data?: Record<string, string> };
  annotations?: Record<string, string>;
}

describe('audit log with kubectl (kubernetes flavor)', { skip }, () => {
  let server: TestServer;
  let kubectl: Kubectl;
  const dir = mkdtempSync(join(tmpdir(), 'orch-e2e-audit-'));
  const log = join(dir, 'audit.log');

  before(async () => {
    writeFileSync(
      join(dir, 'policy.yaml'),
      [
        'apiVersion: audit.k8s.io/v1',
        'kind: Policy',
        'omitStages: ["RequestReceived"]',
        'rules:',
        '  - level: None',
        '    users: ["system:apiserver"]',
        '  - level: None',
        '    nonResourceURLs: ["/api*", "/openapi*", "/version", "/healthz*", "/readyz*", "/livez*"]',
        '  - level: Request',
        '    resources: [{group: "", resources: ["configmaps"]}]',
        '  - level: Metadata',
        '',
      ].join('\n'),
    );
    server = await startTestServer({ flavor: 'kubernetes', args: ['--audit-policy-file', join(dir, 'policy.yaml'), '--audit-log-path', log] });
    kubectl = new Kubectl(binary!, server.kubeconfigPath);
  });
  after(async () => {
    kubectl?.dispose();
    await server?.stop();
  });

  const events = (): Ev[] =>
    readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l)
      .map((l) => JSON.parse(l) as Ev);

  test('kubectl create and get leave one event each, with the request body at Request level', async () => {
    const created = await kubectl.run(['create', 'configmap', 'audited', '-n', 'default', '--from-literal=colour=blue']);
    assert.equal(created.code, 0, created.stderr);
    const got = await kubectl.run(['get', 'configmap', 'audited', '-n', 'default', '-o', 'name']);
    assert.equal(got.code, 0, got.stderr);
    assert.equal(got.stdout.trim(), 'configmap/audited');

    const create = await eventually(() => events().find((e) => e.verb === 'create' && e.objectRef?.name === 'audited'), 'the create event');
    assert.equal(create.apiVersion, 'audit.k8s.io/v1');
    assert.equal(create.stage, 'ResponseComplete');
    assert.equal(create.level, 'Request');
    assert.equal(create.responseStatus?.code, 201);
    assert.match(create.userAgent ?? '', /^kubectl/);
    assert.deepEqual(create.requestObject?.data, { colour: 'blue' });
    assert.equal(create.annotations?.['authorization.k8s.io/decision'], 'allow');

    const get = await eventually(() => events().find((e) => e.verb === 'get' && e.objectRef?.name === 'audited'), 'the get event');
    assert.equal(get.responseStatus?.code, 200);
    assert.equal(get.objectRef?.namespace, 'default');
    assert.ok(events().every((e) => e.stage !== 'RequestReceived'), 'the omitted stage never appears');
  });

  test('a missing object is audited with its status, and a Secret at Metadata carries no data', async () => {
    const missing = await kubectl.run(['get', 'configmap', 'nope', '-n', 'default']);
    assert.notEqual(missing.code, 0);
    const ev = await eventually(() => events().find((e) => e.verb === 'get' && e.objectRef?.name === 'nope'), 'the 404 event');
    assert.equal(ev.responseStatus?.code, 404);
    const secret = await kubectl.run(['create', 'secret', 'generic', 'token', '-n', 'default', '--from-literal=value=do-not-log-me']);
    assert.equal(secret.code, 0, secret.stderr);
    await eventually(() => events().find((e) => e.verb === 'create' && e.objectRef?.name === 'token'), 'the secret event');
    assert.ok(!readFileSync(log, 'utf8').includes(Buffer.from('do-not-log-me').toString('base64')));
    assert.ok(!readFileSync(log, 'utf8').includes('do-not-log-me'));
  });
});
