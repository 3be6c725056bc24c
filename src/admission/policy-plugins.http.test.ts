// ImagePolicyWebhook and EventRateLimit through the whole server over HTTPS, configured as an
// administrator would: --enable-admission-plugins and an --admission-control-config-file.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { json, startHttpsServer, webhookKubeconfig, type TestHttpsServer } from '../testing/https-server.js';
import { createCA, issueCert, type TestCert } from '../testing/pki.js';
import { startAuthTestServer, type AuthTestServer } from '../testing/server.js';

let dir: string;
let ca: TestCert;
let hookCert: TestCert;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'policy-plugins-http-'));
  ca = await createCA('image-policy-ca');
  hookCert = await issueCert(ca, 'hook', { usage: 'server', ips: ['127.0.0.1'] });
});

after(() => rmSync(dir, { recursive: true, force: true }));

const podBody = (name: string, image: string, annotations: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, annotations },
  spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image }] },
});

async function ensureServiceAccount(s: AuthTestServer): Promise<void> {
  const res = await s.request('POST', '/api/v1/namespaces/default/serviceaccounts', s.admin, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
  assert.ok(res.status === 201 || res.status === 409, res.text);
}

test('ImagePolicyWebhook over HTTPS: allow, deny with the reason, annotations sent; backend down with defaultAllow true admits and marks the pod', async () => {
  const reviews: { spec: { containers: { image: string }[]; annotations?: Record<string, string>; namespace?: string } }[] = [];
  let hook: TestHttpsServer | undefined = await startHttpsServer(hookCert, (_req, body, res) => {
    const review = JSON.parse(body) as (typeof reviews)[number] & { apiVersion: string; kind: string };
    assert.equal(review.apiVersion, 'imagepolicy.orch.io/v1alpha1');
    assert.equal(review.kind, 'ImageReview');
    reviews.push(review);
    const evil = review.spec.containers.some((c) => c.image.startsWith('evil/'));
    json(res, 200, { ...review, status: evil ? { allowed: false, reason: 'images from evil/ are not allowed' } : { allowed: true } });
  });
  const kubeconfig = join(dir, 'open.kubeconfig');
  writeFileSync(kubeconfig, webhookKubeconfig(hook.url, ca));
  const admissionConfig = join(dir, 'open-admission.yaml');
  writeFileSync(
    admissionConfig,
    `apiVersion: apiserver.config.orch.io/v1
kind: AdmissionConfiguration
plugins:
- name: ImagePolicyWebhook
  configuration:
    imagePolicy:
      kubeConfigFile: ${kubeconfig}
      allowTTL: 50
      denyTTL: 50
      retryBackoff: 10
      defaultAllow: true
`,
  );
  const s = await startAuthTestServer([
    '--enable-admission-plugins=ImagePolicyWebhook',
    `--admission-control-config-file=${admissionConfig}`,
    '--runtime-config=imagepolicy.orch.io/v1alpha1=true',
  ]);
  try {
    await ensureServiceAccount(s);
    const ok = await s.request('POST', '/api/v1/namespaces/default/pods', s.admin, podBody('good', 'nginx:1.25', { 'ticket.image-policy.orch.io/id': 'T-1', 'unrelated.io/x': 'y' }));
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual(reviews[0]!.spec, { containers: [{ image: 'nginx:1.25' }], annotations: { 'ticket.image-policy.orch.io/id': 'T-1' }, namespace: 'default' });

    const denied = await s.request('POST', '/api/v1/namespaces/default/pods', s.admin, podBody('bad', 'evil/image'));
    assert.equal(denied.status, 403, denied.text);
    assert.equal(denied.json.reason, 'Forbidden');
    assert.equal(denied.json.message, 'pods "bad" is forbidden: image policy webhook backend denied one or more images: images from evil/ are not allowed');
    assert.equal((await s.request('GET', '/api/v1/namespaces/default/pods/bad', s.admin)).status, 404);

    // The group is accepted by --runtime-config, as kube-apiserver accepts it, and served by nothing.
    const groups = await s.request('GET', '/apis', s.admin);
    assert.ok(!groups.text.includes('imagepolicy'), groups.text);

    await hook.close();
    hook = undefined;
    const open = await s.request('POST', '/api/v1/namespaces/default/pods', s.admin, podBody('open', 'unreviewed/image'));
    assert.equal(open.status, 201, open.text);
    assert.equal((open.json.metadata as { annotations: Record<string, string> }).annotations['alpha.image-policy.orch.io/failed-open'], 'true');
    // An answer cached before the backend went down still decides.
    const cachedDeny = await s.request('POST', '/api/v1/namespaces/default/pods', s.admin, podBody('bad2', 'evil/image'));
    assert.equal(cachedDeny.status, 403, cachedDeny.text);
  } finally {
    await hook?.close();
    await s.stop();
  }
});

test('ImagePolicyWebhook with its own configuration file and defaultAllow false: a backend that is down refuses pods', async () => {
  const hook = await startHttpsServer(hookCert, (_req, _body, res) => json(res, 200, { status: { allowed: true } }));
  const kubeconfig = join(dir, 'closed.kubeconfig');
  writeFileSync(kubeconfig, webhookKubeconfig(hook.url, ca));
  const url = hook.url;
  await hook.close();
  writeFileSync(join(dir, 'imagepolicy.yaml'), `imagePolicy:\n  kubeConfigFile: ${kubeconfig}\n  retryBackoff: 10\n  defaultAllow: false\n`);
  const admissionConfig = join(dir, 'closed-admission.yaml');
  writeFileSync(admissionConfig, 'apiVersion: apiserver.config.orch.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ImagePolicyWebhook\n  path: imagepolicy.yaml\n');
  const s = await startAuthTestServer(['--enable-admission-plugins=ImagePolicyWebhook', `--admission-control-config-file=${admissionConfig}`]);
  try {
    await ensureServiceAccount(s);
    const res = await s.request('POST', '/api/v1/namespaces/default/pods', s.admin, podBody('p', 'nginx'));
    assert.equal(res.status, 403, res.text);
    assert.equal(res.json.message, `pods "p" is forbidden: Post "${url}/?timeout=30s": dial tcp ${url.slice('https://'.length)}: connect: connection refused`);
    // Other resources are not its business.
    const cm = await s.request('POST', '/api/v1/namespaces/default/configmaps', s.admin, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
    assert.equal(cm.status, 201, cm.text);
  } finally {
    await s.stop();
  }
});

test('a bad ImagePolicyWebhook or EventRateLimit configuration refuses the start, naming the flag', async () => {
  const cases: [string, string, RegExp][] = [
    ['ImagePolicyWebhook', 'configuration:\n    imagePolicy:\n      kubeConfigFile: /nonexistent/kubeconfig', /ImagePolicyWebhook" from --admission-control-config-file: unable to read kubeConfigFile "\/nonexistent\/kubeconfig"/],
    ['ImagePolicyWebhook', 'configuration:\n    imagePolicy:\n      kubeConfigFile: /k\n      allowTTL: 99999', /valid value is between 1s and 30m0s, got 27h46m39s/],
    ['EventRateLimit', 'configuration:\n    apiVersion: eventratelimit.admission.orch.io/v1alpha1\n    kind: Configuration\n    limits:\n    - type: Server\n      qps: -1\n      burst: 2', /EventRateLimit" from --admission-control-config-file: limits\[0\]\.qps: Invalid value: -1: must be positive/],
    ['EventRateLimit', 'configuration:\n    apiVersion: eventratelimit.admission.orch.io/v1alpha1\n    kind: Nope', /no kind "Nope" is registered/],
  ];
  for (const [plugin, entry, message] of cases) {
    const file = join(dir, `bad-${plugin}.yaml`);
    writeFileSync(file, `apiVersion: apiserver.config.orch.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ${plugin}\n  ${entry}\n`);
    await assert.rejects(startAuthTestServer([`--enable-admission-plugins=${plugin}`, `--admission-control-config-file=${file}`]), message);
  }
  // Enabled without any configuration: refused too, as kube-apiserver refuses it.
  await assert.rejects(startAuthTestServer(['--enable-admission-plugins=EventRateLimit']), /limits: Invalid value: null: must not be empty/);
  await assert.rejects(startAuthTestServer(['--enable-admission-plugins=ImagePolicyWebhook']), /no config specified/);
});

test('EventRateLimit over HTTPS: qps 1 burst 2 per namespace, the third event is 429 with kube\'s message', async () => {
  const file = join(dir, 'eventratelimit.yaml');
  writeFileSync(
    file,
    `apiVersion: apiserver.config.orch.io/v1
kind: AdmissionConfiguration
plugins:
- name: EventRateLimit
  configuration:
    apiVersion: eventratelimit.admission.orch.io/v1alpha1
    kind: Configuration
    limits:
    - type: Namespace
      qps: 1
      burst: 2
`,
  );
  const s = await startAuthTestServer(['--enable-admission-plugins=EventRateLimit,PersistentVolumeLabel', `--admission-control-config-file=${file}`]);
  try {
    // The deprecated plugin is named in the server's log.
    assert.ok(
      s.logs.includes('admission: PersistentVolumeLabel admission controller is deprecated. Please remove this controller from your configuration files and scripts.'),
      s.logs.join('\n'),
    );
    const event = (name: string, namespace = 'default') => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: { kind: 'Pod', namespace, name: 'p', apiVersion: 'v1' },
      reason: 'Test',
      message: 'hello',
      type: 'Normal',
      source: { component: 'test' },
    });
    const codes: number[] = [];
    let last: { status: number; json: Record<string, unknown> } | undefined;
    for (let i = 0; i < 3; i++) {
      last = await s.request('POST', '/api/v1/namespaces/default/events', s.admin, event(`e${i}`));
      codes.push(last.status);
    }
    assert.deepEqual(codes, [201, 201, 429], JSON.stringify(last?.json));
    assert.equal(last!.json.reason, 'TooManyRequests');
    assert.equal(last!.json.message, 'Too many requests: limit reached on type Namespace for key default');
    assert.equal((await s.request('GET', '/api/v1/namespaces/default/events/e2', s.admin)).status, 404);
    // Another namespace has its own bucket.
    const ns = await s.request('POST', '/api/v1/namespaces', s.admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } });
    assert.equal(ns.status, 201, ns.text);
    const other = await s.request('POST', '/api/v1/namespaces/other/events', s.admin, event('x', 'other'));
    assert.notEqual(other.status, 429, JSON.stringify(other.json));
    // Other kinds are not limited.
    for (let i = 0; i < 4; i++) {
      const cm = await s.request('POST', '/api/v1/namespaces/default/configmaps', s.admin, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` } });
      assert.equal(cm.status, 201, cm.text);
    }
  } finally {
    await s.stop();
  }
});
