// --feature-gates end to end: bad values refuse the start naming the flag, the metric reports
// every known gate, and each gate switches what it names in this server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseFlags } from '../apimachinery/flags.js';
import { KNOWN_FEATURES } from '../apimachinery/features.js';
import { startAuthTestServer, type AuthTestServer } from '../testing/server.js';
import { featureGateFromFlags, serverFlagDefinitions } from './flags.js';

const gateFrom = (value: string, log: (l: string) => void = () => {}) => featureGateFromFlags(parseFlags([`--feature-gates=${value}`], serverFlagDefinitions), log);

describe('--feature-gates values', () => {
  const refused: [string, RegExp][] = [
    ['NoSuchGate=true', /--feature-gates: unrecognized feature gate: NoSuchGate$/],
    ['ServerSideApply=false', /--feature-gates: cannot set feature gate ServerSideApply to false, feature is locked to true$/],
    ['APIListChunking=maybe', /--feature-gates: invalid value of APIListChunking=maybe/],
    ['APIListChunking', /--feature-gates: missing bool value for APIListChunking$/],
    ['__proto__=true', /--feature-gates: unrecognized feature gate: __proto__$/],
    ['constructor=true', /--feature-gates: unrecognized feature gate: constructor$/],
    ['AllAlpha=true', /--feature-gates: feature gates not supported by this server at these values .*ProcMountType=true/],
    // Gates of 1.27 whose other value this server does not implement are refused, named, not ignored.
    ['InPlacePodVerticalScaling=true', /--feature-gates: feature gate InPlacePodVerticalScaling=true is not supported by this server/],
    ['CronJobTimeZone=false', /--feature-gates: cannot set feature gate CronJobTimeZone to false, feature is locked to true$/],
  ];
  for (const [value, want] of refused) it(`refuses ${value}`, () => assert.throws(() => gateFrom(value), want));

  it('accepts a locked gate at its default, with the GA warning', () => {
    const logs: string[] = [];
    assert.equal(gateFrom('ServerSideApply=true,CronJobTimeZone=true', (l) => logs.push(l)).enabled('ServerSideApply'), true);
    assert.deepEqual(logs, [
      'Setting GA feature gate ServerSideApply=true. It will be removed in a future release.',
      'Setting GA feature gate CronJobTimeZone=true. It will be removed in a future release.',
    ]);
  });

  it('accepts the gates kubectl and the specification name, and gates that act only in other components', () => {
    const logs: string[] = [];
    const gate = gateFrom('APISelfSubjectReview=true,NodeSwap=true,GracefulNodeShutdown=false', (l) => logs.push(l));
    assert.equal(gate.enabled('APISelfSubjectReview'), true);
    assert.equal(gate.enabled('NodeSwap'), true);
    assert.deepEqual(logs, []);
  });

  it('refuses the start of a whole server naming the flag and the gate', async () => {
    await assert.rejects(startAuthTestServer(['--feature-gates=Bogus=true']), /--feature-gates: unrecognized feature gate: Bogus/);
    await assert.rejects(startAuthTestServer(['--feature-gates=ProcMountType=true']), /--feature-gates: feature gate ProcMountType=true is not supported by this server/);
  });
});

const CRD_GROUP = 'gates.example.com';
const crd = {
  apiVersion: 'apiextensions.orch.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${CRD_GROUP}` },
  spec: {
    group: CRD_GROUP,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' } }, 'x-orch-validations': [{ rule: 'self.size < 10', message: 'too big' }] },
            },
          },
        },
      },
    ],
  },
};

async function createConfigMaps(s: AuthTestServer, ns: string, n: number): Promise<void> {
  assert.equal((await s.request('POST', '/api/v1/namespaces', s.admin, { metadata: { name: ns } })).status, 201);
  for (let i = 0; i < n; i++) assert.equal((await s.request('POST', `/api/v1/namespaces/${ns}/configmaps`, s.admin, { metadata: { name: `cm${i}` } })).status, 201);
}

async function createWidget(s: AuthTestServer, size: number): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const r = await s.request('POST', `/apis/${CRD_GROUP}/v1/namespaces/default/widgets`, s.admin, { apiVersion: `${CRD_GROUP}/v1`, kind: 'Widget', metadata: { name: `w${size}` }, spec: { size } });
    if (r.status !== 404) return r.status;
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error('the custom resource was never served');
}

const AGGREGATED = 'application/json;g=apidiscovery.orch.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

describe('feature gates at their 1.27 defaults', () => {
  let s: AuthTestServer;
  before(async () => {
    s = await startAuthTestServer([]);
  });
  after(async () => s?.stop());

  it('reports every known gate in kubernetes_feature_enabled, GA with an empty stage', async () => {
    const res = await s.request('GET', '/metrics', s.admin);
    assert.equal(res.status, 200);
    assert.match(res.text, /^kubernetes_feature_enabled\{name="APIListChunking",stage="BETA"\} 1$/m);
    assert.match(res.text, /^kubernetes_feature_enabled\{name="ServerSideApply",stage=""\} 1$/m);
    assert.match(res.text, /^kubernetes_feature_enabled\{name="ValidatingAdmissionPolicy",stage="ALPHA"\} 0$/m);
    assert.match(res.text, /^kubernetes_feature_enabled\{name="AllAlpha",stage="ALPHA"\} 0$/m);
    const series = res.text.split('\n').filter((l) => l.startsWith('kubernetes_feature_enabled{'));
    assert.equal(series.length, Object.keys(KNOWN_FEATURES).length + 2, 'every gate, AllAlpha and AllBeta');
  });

  it('pages lists with a remaining item count', async () => {
    await createConfigMaps(s, 'paged', 3);
    // The root CA publisher may add its own ConfigMap: count what is there.
    const total = ((await s.request('GET', '/api/v1/namespaces/paged/configmaps', s.admin)).json.items as unknown[]).length;
    const res = await s.request('GET', '/api/v1/namespaces/paged/configmaps?limit=1', s.admin);
    const meta = res.json.metadata as Record<string, unknown>;
    assert.equal((res.json.items as unknown[]).length, 1);
    assert.ok(meta.continue);
    assert.equal(meta.remainingItemCount, total - 1);
  });

  it('answers the aggregated discovery media type', async () => {
    const res = await s.request('GET', '/apis', { ...s.admin, headers: { Accept: AGGREGATED } });
    assert.equal(res.json.kind, 'APIGroupDiscoveryList');
  });

  it('evaluates x-kubernetes-validations', async () => {
    assert.equal((await s.request('POST', '/apis/apiextensions.orch.io/v1/customresourcedefinitions', s.admin, crd)).status, 201);
    assert.equal(await createWidget(s, 20), 422);
  });

  it('serves authentication v1 only by default (SelfSubjectReview is beta and alpha in 1.27, off by default)', async () => {
    const res = await s.request('GET', '/apis/authentication.orch.io', s.admin);
    assert.deepEqual((res.json.versions as { version: string }[]).map((v) => v.version), ['v1']);
    for (const v of ['v1', 'v1beta1', 'v1alpha1']) {
      assert.equal((await s.request('POST', `/apis/authentication.orch.io/${v}/selfsubjectreviews`, s.admin, { kind: 'SelfSubjectReview', apiVersion: `authentication.orch.io/${v}` })).status, 404, v);
    }
  });
});

describe('feature gates switched off', () => {
  let s: AuthTestServer;
  before(async () => {
    s = await startAuthTestServer([
      '--feature-gates=RemainingItemCount=false,AggregatedDiscoveryEndpoint=false,CustomResourceValidationExpressions=false',
      '--runtime-config=authentication.orch.io/v1alpha1=true',
    ]);
  });
  after(async () => s?.stop());

  it('reports the gates off', async () => {
    const res = await s.request('GET', '/metrics', s.admin);
    assert.match(res.text, /^kubernetes_feature_enabled\{name="RemainingItemCount",stage="BETA"\} 0$/m);
  });

  it('RemainingItemCount off: pages carry no count', async () => {
    await createConfigMaps(s, 'paged', 3);
    const res = await s.request('GET', '/api/v1/namespaces/paged/configmaps?limit=1', s.admin);
    const meta = res.json.metadata as Record<string, unknown>;
    assert.ok(meta.continue);
    assert.equal(meta.remainingItemCount, undefined);
  });

  it('AggregatedDiscoveryEndpoint off: the plain group list answers', async () => {
    const res = await s.request('GET', '/apis', { ...s.admin, headers: { Accept: AGGREGATED } });
    assert.equal(res.json.kind, 'APIGroupList');
  });

  it('CustomResourceValidationExpressions off: rules are dropped from new definitions and not evaluated', async () => {
    const res = await s.request('POST', '/apis/apiextensions.orch.io/v1/customresourcedefinitions', s.admin, crd);
    assert.equal(res.status, 201, res.text);
    assert.doesNotMatch(res.text, /x-orch-validations/);
    assert.equal(await createWidget(s, 20), 201);
  });

  it('serves alpha authentication when the runtime config asks', async () => {
    assert.equal((await s.request('POST', '/apis/authentication.orch.io/v1alpha1/selfsubjectreviews', s.admin, { kind: 'SelfSubjectReview', apiVersion: 'authentication.orch.io/v1alpha1' })).status, 201);
  });
});

describe('APIListChunking off', () => {
  let s: AuthTestServer;
  before(async () => {
    s = await startAuthTestServer(['--feature-gates=APIListChunking=false']);
  });
  after(async () => s?.stop());

  it('ignores limit and continue: the whole list answers', async () => {
    await createConfigMaps(s, 'whole', 3);
    const res = await s.request('GET', '/api/v1/namespaces/whole/configmaps?limit=1', s.admin);
    assert.ok((res.json.items as unknown[]).length >= 3);
    assert.equal((res.json.metadata as Record<string, unknown>).continue, undefined);
    const cont = await s.request('GET', '/api/v1/namespaces/whole/configmaps?limit=1&continue=bogus', s.admin);
    assert.equal(cont.status, 200);
    assert.ok((cont.json.items as unknown[]).length >= 3);
    assert.equal((cont.json.metadata as Record<string, unknown>).continue, undefined);
  });
});
