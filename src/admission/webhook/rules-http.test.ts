// Resource rules seen through the API server: which webhooks a create, a status update and a
// scale update reach, for rules written as `*`, `*/*`, `widgets/*` and `*/status`.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Registry } from 'prom-client';
import { builtinResourceDefinitions } from '../../apis/definitions.js';
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

type Review = { apiVersion: string; request: { uid: string; resource: { resource: string }; subResource?: string } };

// Each webhook's name is its rule; the path it is served on says which one was called.
const RULES = ['*', '*/*', 'widgets/*', '*/status'];

let hooks: TestHttpsServer;
let api: TestServer;
let configStorage: MemoryStorage;
let configTable: DefaultResourceTable;
let plugins: WebhookAdmissionPlugin[];
const called: string[] = [];

before(async () => {
  const ca = await createCA('hooks-ca');
  hooks = await startHttpsServer(await issueCert(ca, 'hooks', { usage: 'server', ips: ['127.0.0.1'] }), (req, body, res) => {
    const review = JSON.parse(body) as Review;
    called.push(decodeURIComponent(new URL(req.url!, hooks.url).pathname.slice(1)));
    json(res, 200, { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } });
  });
  configStorage = new MemoryStorage();
  configTable = buildResourceTable(builtinResourceDefinitions(), configStorage);
  const configs = new LoopbackClient(configTable, { username: 'admin', groups: ['system:masters'] });
  const webhooks = RULES.map((rule, i) => ({
    name: `rule-${i}.example.com`,
    clientConfig: { url: `${hooks.url}/${encodeURIComponent(rule)}`, caBundle: Buffer.from(ca.certPem).toString('base64') },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['*'], apiVersions: ['*'], resources: [rule] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
  }));
  const G = group('admissionregistration');
  await configs.create({ group: G, version: 'v1', resource: 'validatingwebhookconfigurations' }, '', { metadata: { name: 'rules' }, webhooks });
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

const BASE = '/apis/widgets.testing/v1/namespaces/default/widgets';

async function calledFor(method: string, path: string, body: unknown): Promise<string[]> {
  called.length = 0;
  const res = await api.request(method, path, { body });
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.body}`);
  return [...called].sort();
}

test('a create reaches *, */* and widgets/* (a resource/* rule covers the resource itself), not */status', async () => {
  assert.deepEqual(await calledFor('POST', BASE, { apiVersion: 'widgets.testing/v1', kind: 'Widget', metadata: { name: 'w' } }), ['*', '*/*', 'widgets/*']);
});

test('a status update reaches */*, widgets/* and */status, not *', async () => {
  const current = (await api.request('GET', `${BASE}/w`)).json();
  assert.deepEqual(await calledFor('PUT', `${BASE}/w/status`, { ...current, status: { phase: 'x' } }), ['*/*', '*/status', 'widgets/*']);
});

test('a scale update reaches */* and widgets/* only', async () => {
  const scale = (await api.request('GET', `${BASE}/w/scale`)).json();
  assert.deepEqual(await calledFor('PUT', `${BASE}/w/scale`, { ...scale, spec: { replicas: 2 } }), ['*/*', 'widgets/*']);
});
