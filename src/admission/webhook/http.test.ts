// Webhooks seen from an HTTP client of the API server: the patched object, the Warning
// header, the rejection Status on the wire, and dry run.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Registry } from 'prom-client';
import { builtinResourceDefinitions } from '../../apis/definitions.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { createCA, issueCert } from '../../testing/pki.js';
import { json, startHttpsServer, type TestHttpsServer } from '../../testing/https-server.js';
import { LoopbackClient } from '../../server/loopback.js';
import { group, setFlavor } from '../../naming/index.js';
import { buildResourceTable, type DefaultResourceTable } from '../../registry/index.js';
import { startTestServer, type TestServer } from '../../testing/api-server.js';
import { MemoryStorage } from '../../storage/index.js';
import { PluginChain } from '../chain.js';
import { webhookPlugins, type WebhookAdmissionPlugin } from './index.js';

setFlavor('orch');

type Review = { apiVersion: string; request: { uid: string; dryRun: boolean; object: KubeObject } };

let hooks: TestHttpsServer;
let api: TestServer;
let configStorage: MemoryStorage;
let configTable: DefaultResourceTable;
let plugins: WebhookAdmissionPlugin[];
const reviews: Review[] = [];

before(async () => {
  const ca = await createCA('hooks-ca');
  hooks = await startHttpsServer(await issueCert(ca, 'hooks', { usage: 'server', ips: ['127.0.0.1'] }), (req, body, res) => {
    const review = JSON.parse(body) as Review;
    reviews.push(review);
    const base = { uid: review.request.uid };
    if (req.url?.startsWith('/mutate')) {
      const patch = Buffer.from(JSON.stringify([{ op: 'add', path: '/metadata/annotations', value: { hooked: 'true' } }])).toString('base64');
      return json(res, 200, { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { ...base, allowed: true, patchType: 'JSONPatch', patch, warnings: ['annotated by the hook'] } });
    }
    const deny = review.request.object?.metadata?.labels?.deny === 'yes';
    json(res, 200, { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { ...base, allowed: !deny } });
  });
  configStorage = new MemoryStorage();
  configTable = buildResourceTable(builtinResourceDefinitions(), configStorage);
  const configs = new LoopbackClient(configTable, { username: 'admin', groups: ['system:masters'] });
  const hook = (name: string, path: string) => ({
    name,
    clientConfig: { url: `${hooks.url}${path}`, caBundle: Buffer.from(ca.certPem).toString('base64') },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'NoneOnDryRun',
    admissionReviewVersions: ['v1'],
  });
  const G = group('admissionregistration');
  await configs.create({ group: G, version: 'v1', resource: 'mutatingwebhookconfigurations' }, '', { metadata: { name: 'm' }, webhooks: [hook('annotate.example.com', '/mutate')] });
  await configs.create({ group: G, version: 'v1', resource: 'validatingwebhookconfigurations' }, '', { metadata: { name: 'v' }, webhooks: [hook('deny.example.com', '/validate')] });
  plugins = webhookPlugins({ client: configs, metricsRegistry: new Registry() });
  api = await startTestServer({ admission: new PluginChain(plugins) });
});

after(async () => {
  await api.close();
  for (const p of plugins) await p.stop();
  await hooks.close();
  await configTable.stop();
  await configStorage.close();
});

test('a created object carries the mutation and the webhook warning comes as a 299 Warning header', async () => {
  const res = await api.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } } });
  assert.equal(res.status, 201, res.body);
  assert.deepEqual(res.json().metadata?.annotations, { hooked: 'true' });
  assert.equal(res.headers.warning, '299 - "annotated by the hook"');
});

test('a rejection is answered with the Status Kubernetes sends: code 403, no reason', async () => {
  const res = await api.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', labels: { deny: 'yes' } } } });
  assert.equal(res.status, 403);
  assert.deepEqual(res.json(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'admission webhook "deny.example.com" denied the request without explanation',
    code: 403,
  });
});

test('dry run reaches webhooks marked NoneOnDryRun with dryRun true, and nothing is stored', async () => {
  reviews.length = 0;
  const res = await api.request('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' } } });
  assert.equal(res.status, 201, res.body);
  assert.deepEqual(res.json().metadata?.annotations, { hooked: 'true' });
  assert.ok(reviews.length >= 2);
  assert.ok(reviews.every((r) => r.request.dryRun === true));
  assert.equal((await api.request('GET', '/api/v1/namespaces/default/configmaps/dry')).status, 404);
});
