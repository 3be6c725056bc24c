// The webhook plugins over the real registry, calling real HTTPS webhook servers on
// 127.0.0.1 that trust and present certificates of the test's own CA.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Registry } from 'prom-client';
import { builtinResourceDefinitions } from '../../apis/definitions.js';
import { ApiError } from '../../apimachinery/errors.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { createCA, issueCert, type TestCert } from '../../testing/pki.js';
import { json, startHttpsServer, type TestHttpsServer } from '../../testing/https-server.js';
import { eventually } from '../../testing/wait.js';
import { LoopbackClient } from '../../server/loopback.js';
import { group, longDomainKey, setFlavor } from '../../naming/index.js';
import { buildResourceTable, type DefaultResourceTable } from '../../registry/index.js';
import { MemoryStorage } from '../../storage/index.js';
import { PluginChain } from '../chain.js';
import type { AdmissionAttributes } from '../types.js';
import { webhookPlugin, webhookPlugins, type WebhookAdmissionPlugin } from './index.js';

setFlavor('orch');

const admin = { username: 'admin', uid: 'admin-uid', groups: ['system:masters', 'system:authenticated'] };
const NS: GroupVersionResource = { group: '', version: 'v1', resource: 'namespaces' };
const CM: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const MWC = (): GroupVersionResource => ({ group: group('admissionregistration'), version: 'v1', resource: 'mutatingwebhookconfigurations' });
const VWC = (): GroupVersionResource => ({ group: group('admissionregistration'), version: 'v1', resource: 'validatingwebhookconfigurations' });

type Review = { apiVersion: string; kind: string; request: Record<string, unknown> & { uid: string; object: KubeObject | null; oldObject: KubeObject | null } };
type Reply = Record<string, unknown> | ((review: Review) => Record<string, unknown> | Promise<Record<string, unknown>>);

interface Call {
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  review: Review;
}

let storage: MemoryStorage;
let table: DefaultResourceTable;
let plain: LoopbackClient;
let client: LoopbackClient;
let plugins: WebhookAdmissionPlugin[];
let metrics: Registry;
let ca: TestCert;
let otherCa: TestCert;
let server: TestHttpsServer;
let untrusted: TestHttpsServer;
const routes = new Map<string, Reply>();
const calls: Call[] = [];

/** A webhook answer in the review's version: allowed, with optional extras. */
function allow(review: Review, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true, ...extra } };
}

function patchOf(ops: unknown[]): Record<string, unknown> {
  return { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') };
}

async function handle(req: IncomingMessage, body: string, res: import('node:http').ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'https://127.0.0.1');
  const review = JSON.parse(body) as Review;
  calls.push({ path: url.pathname, query: url.searchParams, contentType: req.headers['content-type'], review });
  const route = routes.get(url.pathname);
  if (!route) return json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'no such hook', code: 404 });
  json(res, 200, typeof route === 'function' ? await route(review) : route);
}

before(async () => {
  ca = await createCA('webhook-ca');
  otherCa = await createCA('other-ca');
  const cert = await issueCert(ca, 'webhook', { usage: 'server', ips: ['127.0.0.1'], dnsNames: ['hook.webhooks.svc', 'direct.webhooks.svc'] });
  server = await startHttpsServer(cert, (req, body, res) => void handle(req, body, res));
  untrusted = await startHttpsServer(await issueCert(otherCa, 'webhook', { usage: 'server', ips: ['127.0.0.1'] }), (req, body, res) => void handle(req, body, res));
  storage = new MemoryStorage();
  table = buildResourceTable(builtinResourceDefinitions(), storage);
  plain = new LoopbackClient(table, admin);
  metrics = new Registry();
  plugins = webhookPlugins({ client: plain, resources: table, metricsRegistry: metrics, readyTimeoutMs: 5000 });
  client = new LoopbackClient(table, admin, { admission: new PluginChain(plugins) });
  for (const name of ['team', 'webhooks']) await plain.create(NS, '', { metadata: { name, labels: { env: name === 'team' ? 'prod' : 'infra' } } });
});

after(async () => {
  for (const p of plugins) await p.stop();
  await server.close();
  await untrusted.close();
  await table.stop();
  await storage.close();
});

interface HookSpec {
  name: string;
  path?: string;
  url?: string;
  [field: string]: unknown;
}

const configMapRule = [{ operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];

function webhook(spec: HookSpec, ca_: TestCert = ca): Record<string, unknown> {
  const { path, url, ...rest } = spec;
  return {
    clientConfig: { url: url ?? `${server.url}${path ?? '/'}`, caBundle: Buffer.from(ca_.certPem).toString('base64') },
    rules: configMapRule,
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...rest,
  };
}

/** Creates a configuration and waits until the plugin sees it; returns a cleanup. */
async function configure(kind: 'mutating' | 'validating', name: string, hooks: Record<string, unknown>[]): Promise<() => Promise<void>> {
  const r = kind === 'mutating' ? MWC() : VWC();
  await plain.create(r, '', { metadata: { name }, webhooks: hooks });
  const plugin = plugins[kind === 'mutating' ? 0 : 1] as WebhookAdmissionPlugin & { configuredWebhooks(): readonly { configurationName: string }[] };
  await until(() => plugin.configuredWebhooks().some((w) => w.configurationName === name));
  return async () => {
    await plain.delete(r, '', name);
    await until(() => !plugin.configuredWebhooks().some((w) => w.configurationName === name));
  };
}

async function until(check: () => boolean): Promise<void> {
  await eventually(check, 'the webhook configuration to reach the plugin', 5000);
}

const cm = (name: string, labels?: Record<string, string>): KubeObject => ({ metadata: { name, ...(labels ? { labels } : {}) }, data: { k: 'v' } });

function rejects(code: number, message: string, check?: (e: ApiError) => void): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.message, message);
    assert.equal(e.code, code);
    check?.(e);
    return true;
  };
}

async function rejectionCount(labels: Record<string, string>): Promise<number> {
  const m = (await metrics.getMetricsAsJSON()).find((x) => x.name === 'apiserver_admission_webhook_rejection_count');
  const values = (m as { values?: { value: number; labels: Record<string, string | number> }[] } | undefined)?.values ?? [];
  return values.filter((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want)).reduce((n, v) => n + v.value, 0);
}

test('a mutating webhook gets a v1 review of the request and its JSON patch is applied', async () => {
  routes.set('/mutate', (review) => allow(review, { ...patchOf([{ op: 'add', path: '/metadata/labels', value: { stamped: 'yes' } }]), warnings: ['stamped by the hook'] }));
  const cleanup = await configure('mutating', 'stamp', [webhook({ name: 'stamp.example.com', path: '/mutate' })]);
  try {
    calls.length = 0;
    const created = await client.create(CM, 'team', cm('one'));
    assert.deepEqual(created.metadata?.labels, { stamped: 'yes' });
    assert.equal(calls.length, 1);
    const call = calls[0]!;
    assert.equal(call.contentType, 'application/json');
    assert.equal(call.query.get('timeout'), '10s');
    assert.equal(call.review.apiVersion, 'admission.orch.io/v1');
    assert.equal(call.review.kind, 'AdmissionReview');
    const r = call.review.request;
    assert.match(r.uid, /^[0-9a-f-]{36}$/);
    assert.deepEqual(r.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
    assert.deepEqual(r.resource, { group: '', version: 'v1', resource: 'configmaps' });
    assert.deepEqual(r.requestKind, r.kind);
    assert.deepEqual(r.requestResource, r.resource);
    assert.equal(r.name, 'one');
    assert.equal(r.namespace, 'team');
    assert.equal(r.operation, 'CREATE');
    assert.deepEqual(r.userInfo, { username: 'admin', uid: 'admin-uid', groups: ['system:masters', 'system:authenticated'] });
    assert.equal(r.object?.metadata?.name, 'one');
    assert.equal(r.oldObject, null);
    assert.equal(r.dryRun, false);

    // Audit annotations and warnings, seen through attributes the request path would pass.
    const recorded: [string, string, string][] = [];
    const attrs: AdmissionAttributes & { addAuditAnnotation(k: string, v: string, l: string): void } = {
      operation: 'CREATE',
      object: cm('two'),
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: CM,
      subresource: '',
      namespace: 'team',
      name: 'two',
      user: admin,
      dryRun: false,
      warnings: [],
      addAuditAnnotation: (k, v, l) => recorded.push([k, v, l]),
    };
    const object = attrs.object;
    await plugins[0]!.admit!(attrs);
    assert.equal(attrs.object, object, 'the object is changed in place');
    assert.deepEqual(attrs.object?.metadata?.labels, { stamped: 'yes' });
    assert.deepEqual(attrs.warnings, ['stamped by the hook']);
    assert.deepEqual(recorded, [
      ['patch.webhook.admission.orch.io/round_0_index_0', '{"configuration":"stamp","webhook":"stamp.example.com","patch":[{"op":"add","path":"/metadata/labels","value":{"stamped":"yes"}}],"patchType":"JSONPatch"}', 'Request'],
      ['mutation.webhook.admission.orch.io/round_0_index_0', '{"configuration":"stamp","webhook":"stamp.example.com","mutated":true}', 'Metadata'],
    ]);
  } finally {
    await cleanup();
  }
});

test('a validating rejection carries the webhook code and message; the default code is 403', async () => {
  routes.set('/deny-409', (review) => ({ ...allow(review), response: { uid: review.request.uid, allowed: false, status: { code: 409, message: 'name is taken' } } }));
  routes.set('/deny-bare', (review) => ({ ...allow(review), response: { uid: review.request.uid, allowed: false } }));
  const cleanup = await configure('validating', 'deny', [
    webhook({ name: 'taken.example.com', path: '/deny-409', objectSelector: { matchLabels: { check: 'taken' } } }),
    webhook({ name: 'bare.example.com', path: '/deny-bare', objectSelector: { matchLabels: { check: 'bare' } } }),
  ]);
  try {
    const before409 = await rejectionCount({ name: 'taken.example.com', type: 'validating', operation: 'CREATE', error_type: 'no_error', rejection_code: '409' });
    await assert.rejects(client.create(CM, 'team', cm('t', { check: 'taken' })), rejects(409, 'admission webhook "taken.example.com" denied the request: name is taken', (e) => assert.equal('reason' in e.status, false)));
    assert.equal(await rejectionCount({ name: 'taken.example.com', type: 'validating', operation: 'CREATE', error_type: 'no_error', rejection_code: '409' }), before409 + 1);
    await assert.rejects(client.create(CM, 'team', cm('b', { check: 'bare' })), rejects(403, 'admission webhook "bare.example.com" denied the request without explanation'));
    // Neither selector matches: no call, the write goes through.
    await client.create(CM, 'team', cm('free', { check: 'none' }));
    // The object selector also matches the old object: a delete is validated against it.
    await plain.create(CM, 'team', cm('old', { check: 'taken' }));
    await assert.rejects(client.delete(CM, 'team', 'old'), rejects(409, 'admission webhook "taken.example.com" denied the request: name is taken'));
  } finally {
    await cleanup();
  }
});

test('call failures: Fail rejects with 500, Ignore lets the request through', async () => {
  const closed = `https://127.0.0.1:${new URL(untrusted.url).port}`;
  await untrusted.close();
  // The slow hook answers only once the test is over: the call must end at its 1 s timeout.
  let answerSlow = (): void => {};
  const slowAnswered = new Promise<void>((resolve) => (answerSlow = resolve));
  routes.set('/slow', async (review) => {
    await slowAnswered;
    return allow(review);
  });
  const cleanup = await configure('validating', 'broken', [
    webhook({ name: 'refused.example.com', url: `${closed}/x`, objectSelector: { matchLabels: { hook: 'refused' } } }),
    webhook({ name: 'slow.example.com', path: '/slow', timeoutSeconds: 1, objectSelector: { matchLabels: { hook: 'slow' } } }),
    webhook({ name: 'stranger.example.com', path: '/mutate', objectSelector: { matchLabels: { hook: 'stranger' } } }, otherCa),
    webhook({ name: 'ignored.example.com', url: `${closed}/x`, failurePolicy: 'Ignore', objectSelector: { matchLabels: { hook: 'ignored' } } }),
  ]);
  try {
    await assert.rejects(
      client.create(CM, 'team', cm('r', { hook: 'refused' })),
      rejects(500, `Internal error occurred: failed calling webhook "refused.example.com": failed to call webhook: Post "${closed}/x?timeout=10s": dial tcp 127.0.0.1:${new URL(closed).port}: connect: connection refused`, (e) => {
        assert.equal(e.reason, 'InternalError');
      }),
    );
    assert.equal(await rejectionCount({ name: 'refused.example.com', error_type: 'calling_webhook_error', rejection_code: '503' }), 1);
    await assert.rejects(client.create(CM, 'team', cm('s', { hook: 'slow' })), (e: unknown) => e instanceof ApiError && e.code === 500 && e.message.endsWith('?timeout=1s": context deadline exceeded'));
    await assert.rejects(client.create(CM, 'team', cm('x', { hook: 'stranger' })), (e: unknown) => e instanceof ApiError && e.message.endsWith('x509: certificate signed by unknown authority'));
    await client.create(CM, 'team', cm('i', { hook: 'ignored' }));
  } finally {
    answerSlow();
    await cleanup();
  }
});

test('namespaceSelector: the namespace labels, or a Namespace object its own', async () => {
  routes.set('/ns', (review) => ({ ...allow(review), response: { uid: review.request.uid, allowed: false, status: { message: 'not in prod' } } }));
  const cleanup = await configure('validating', 'prod-only', [
    webhook({
      name: 'prod.example.com',
      path: '/ns',
      rules: [...configMapRule, { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'] }],
      namespaceSelector: { matchLabels: { env: 'prod' } },
    }),
  ]);
  try {
    await assert.rejects(client.create(CM, 'team', cm('p')), rejects(403, 'admission webhook "prod.example.com" denied the request: not in prod'));
    await client.create(CM, 'webhooks', cm('p'));
    await assert.rejects(client.create(NS, '', { metadata: { name: 'prod2', labels: { env: 'prod' } } }), rejects(403, 'admission webhook "prod.example.com" denied the request: not in prod'));
    await client.create(NS, '', { metadata: { name: 'dev2', labels: { env: 'dev' } } });
  } finally {
    await cleanup();
  }
});

test('a service reference reaches the endpoints, verified as <service>.<namespace>.svc', async () => {
  const port = Number(new URL(server.url).port);
  await plain.create({ group: '', version: 'v1', resource: 'services' }, 'webhooks', {
    metadata: { name: 'hook' },
    spec: { ports: [{ name: 'https', port: 443, targetPort: port }] },
  });
  // An EndpointSlice: Endpoints may not name a loopback address (Kubernetes' validation), slices may.
  await plain.create({ group: group('discovery'), version: 'v1', resource: 'endpointslices' }, 'webhooks', {
    metadata: { name: 'hook-abc', labels: { [longDomainKey('service-name')]: 'hook' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    ports: [{ name: 'https', port }],
  });
  routes.set('/svc', (review) => allow(review, patchOf([{ op: 'add', path: '/data/via', value: 'service' }])));
  const cleanup = await configure('mutating', 'by-service', [
    {
      ...webhook({ name: 'svc.example.com' }),
      clientConfig: { service: { namespace: 'webhooks', name: 'hook', path: '/svc' }, caBundle: Buffer.from(ca.certPem).toString('base64') },
    },
  ]);
  try {
    const created = await client.create(CM, 'team', cm('s'));
    assert.equal((created.data as Record<string, string>).via, 'service');
  } finally {
    await cleanup();
  }
});

test('reinvocation: an IfNeeded webhook runs again after a later webhook changed the object', async () => {
  const seen: Record<string, string>[] = [];
  routes.set('/first', (review) => {
    seen.push({ ...(review.request.object?.metadata?.labels ?? {}) });
    return allow(review);
  });
  routes.set('/second', (review) => allow(review, patchOf([{ op: 'add', path: '/metadata/labels', value: { second: 'done' } }])));
  const cleanup = await configure('mutating', 'again', [
    webhook({ name: 'first.example.com', path: '/first', reinvocationPolicy: 'IfNeeded' }),
    webhook({ name: 'second.example.com', path: '/second' }),
  ]);
  try {
    await client.create(CM, 'team', cm('re'));
    assert.deepEqual(seen, [{}, { second: 'done' }]);
  } finally {
    await cleanup();
  }
});

test('matchPolicy Equivalent sends the request converted to the version the rule names', async () => {
  const hpaRule = [{ operations: ['CREATE'], apiGroups: ['autoscaling'], apiVersions: ['v2'], resources: ['horizontalpodautoscalers'] }];
  routes.set('/hpa', (review) => allow(review));
  const cleanup = await configure('validating', 'hpa', [
    webhook({ name: 'equivalent.example.com', path: '/hpa', rules: hpaRule }),
    webhook({ name: 'exact.example.com', path: '/hpa', rules: hpaRule, matchPolicy: 'Exact' }),
  ]);
  try {
    calls.length = 0;
    await client.create({ group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' }, 'team', {
      metadata: { name: 'h' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'd', apiVersion: 'apps/v1' }, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 50 },
    });
    assert.equal(calls.length, 1);
    const r = calls[0]!.review.request;
    assert.deepEqual(r.kind, { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' });
    assert.deepEqual(r.requestKind, { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' });
    assert.deepEqual(r.requestResource, { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' });
    assert.equal(r.object?.apiVersion, 'autoscaling/v2');
  } finally {
    await cleanup();
  }
});

test('a v1beta1 review is sent when listed first, and its untyped answer is accepted', async () => {
  routes.set('/beta', (review) => ({ response: { allowed: true, patch: Buffer.from(JSON.stringify([{ op: 'add', path: '/data/beta', value: review.apiVersion }])).toString('base64') } }));
  const cleanup = await configure('mutating', 'beta', [webhook({ name: 'beta.example.com', path: '/beta', admissionReviewVersions: ['v1beta1', 'v1'] })]);
  try {
    const created = await client.create(CM, 'team', cm('beta'));
    assert.equal((created.data as Record<string, string>).beta, 'admission.orch.io/v1beta1');
  } finally {
    await cleanup();
  }
});

test('writes of webhook configurations never reach webhooks', async () => {
  routes.set('/all', (review) => ({ ...allow(review), response: { uid: review.request.uid, allowed: false } }));
  const cleanup = await configure('validating', 'deny-all', [webhook({ name: 'all.example.com', path: '/all', rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }] })]);
  try {
    await assert.rejects(client.create(CM, 'team', cm('blocked')), rejects(403, 'admission webhook "all.example.com" denied the request without explanation'));
    await client.create(VWC(), '', { metadata: { name: 'still-writable' }, webhooks: [] });
    await client.delete(VWC(), '', 'still-writable');
  } finally {
    await cleanup();
  }
});

test('without endpoints a service reference goes to the clusterIP on the service port', async () => {
  const port = Number(new URL(server.url).port);
  await plain.create({ group: '', version: 'v1', resource: 'services' }, 'webhooks', {
    metadata: { name: 'direct' },
    spec: { clusterIP: '127.0.0.1', clusterIPs: ['127.0.0.1'], ports: [{ port, targetPort: port }] },
  });
  routes.set('/direct', (review) => allow(review, patchOf([{ op: 'add', path: '/data/via', value: 'clusterIP' }])));
  const cleanup = await configure('mutating', 'by-cluster-ip', [
    {
      ...webhook({ name: 'direct.example.com' }),
      clientConfig: { service: { namespace: 'webhooks', name: 'direct', port, path: '/direct' }, caBundle: Buffer.from(ca.certPem).toString('base64') },
    },
  ]);
  try {
    calls.length = 0;
    const created = await client.create(CM, 'team', cm('ip'));
    assert.equal((created.data as Record<string, string>).via, 'clusterIP');
    assert.equal(calls[0]?.query.get('timeout'), '10s');
  } finally {
    await cleanup();
  }
  // The same server under a service name its certificate does not carry is refused.
  await plain.create({ group: '', version: 'v1', resource: 'services' }, 'webhooks', {
    metadata: { name: 'misnamed' },
    spec: { clusterIP: '127.0.0.1', clusterIPs: ['127.0.0.1'], ports: [{ port, targetPort: port }] },
  });
  const misnamed = await configure('mutating', 'misnamed', [
    {
      ...webhook({ name: 'misnamed.example.com' }),
      clientConfig: { service: { namespace: 'webhooks', name: 'misnamed', port, path: '/direct' }, caBundle: Buffer.from(ca.certPem).toString('base64') },
    },
  ]);
  try {
    await assert.rejects(
      client.create(CM, 'team', cm('ip2')),
      rejects(500, `Internal error occurred: failed calling webhook "misnamed.example.com": failed to call webhook: Post "https://misnamed.webhooks.svc:${port}/direct?timeout=10s": tls: failed to verify certificate: x509: certificate is not valid for misnamed.webhooks.svc`),
    );
  } finally {
    await misnamed();
  }
});

test('the kubeConfigFile of the plugin configuration gives the client certificate and token for a webhook', async () => {
  const clientCa = await createCA('apiserver-clients');
  const apiserverCert = await issueCert(clientCa, 'apiserver', { usage: 'client' });
  const seen: { subject: string; authorization: string | undefined }[] = [];
  const cert = await issueCert(ca, 'mtls', { usage: 'server', ips: ['127.0.0.1'] });
  const mtls = createServer({ cert: cert.certPem, key: cert.keyPem, ca: clientCa.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
      seen.push({ subject: String(peer.subject?.CN), authorization: req.headers.authorization });
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
      json(res, 200, allow(review));
    });
  });
  await new Promise<void>((resolve) => mtls.listen(0, '127.0.0.1', resolve));
  const port = (mtls.address() as AddressInfo).port;
  const dir = mkdtempSync(join(tmpdir(), 'webhook-kubeconfig-'));
  const file = join(dir, 'kubeconfig.yaml');
  writeFileSync(file, JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    users: [{ name: `127.0.0.1:${port}`, user: { 'client-certificate-data': Buffer.from(apiserverCert.certPem).toString('base64'), 'client-key-data': Buffer.from(apiserverCert.keyPem).toString('base64'), token: 'secret-token' } }],
  }));
  const plugin = webhookPlugin('validating', { client: plain, config: { kubeConfigFile: file }, metricsRegistry: new Registry() }) as WebhookAdmissionPlugin & { configuredWebhooks(): readonly { configurationName: string }[] };
  await plain.create(VWC(), '', { metadata: { name: 'mtls' }, webhooks: [webhook({ name: 'mtls.example.com', url: `https://127.0.0.1:${port}/check` })] });
  try {
    await until(() => plugin.configuredWebhooks().some((w) => w.configurationName === 'mtls'));
    await plugin.validate!({
      operation: 'CREATE',
      object: cm('m'),
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: CM,
      subresource: '',
      namespace: 'team',
      name: 'm',
      user: admin,
      dryRun: false,
      warnings: [],
    });
    assert.deepEqual(seen, [{ subject: 'apiserver', authorization: 'Bearer secret-token' }]);
  } finally {
    await plain.delete(VWC(), '', 'mtls');
    await plugin.stop();
    mtls.closeAllConnections();
    await new Promise<void>((resolve) => mtls.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  }
});
