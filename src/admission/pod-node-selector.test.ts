// PodNodeSelector: the namespace annotation, the cluster default and whitelists of its
// configuration, merging, conflicts, and hostile configurations and annotations.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import { FakeClient } from '../testing/fake-client.js';
import { labelsConflict, parsePodNodeSelectorConfig, parseSelectorLabels, PodNodeSelector } from './pod-node-selector.js';
import type { AdmissionAttributes } from './types.js';

const NS = { group: '', version: 'v1', resource: 'namespaces' };

function attrs(object: KubeObject, namespace: string): AdmissionAttributes {
  return {
    operation: 'CREATE',
    object,
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: '',
    namespace,
    name: object.metadata?.name ?? '',
    user: { username: 'alice', groups: [] },
    dryRun: false,
    warnings: [],
  };
}

const pod = (nodeSelector?: Record<string, string>): KubeObject => ({
  metadata: { name: 'p' },
  spec: { containers: [{ name: 'a', image: 'a' }], ...(nodeSelector ? { nodeSelector } : {}) },
});

async function client(): Promise<FakeClient> {
  const c = new FakeClient();
  await c.create(NS, '', { metadata: { name: 'plain' } });
  await c.create(NS, '', { metadata: { name: 'prod', annotations: { 'scheduler.alpha.orch.io/node-selector': 'env=prod, tier = web' } } });
  await c.create(NS, '', { metadata: { name: 'open', annotations: { 'scheduler.alpha.orch.io/node-selector': '' } } });
  await c.create(NS, '', { metadata: { name: 'broken', annotations: { 'scheduler.alpha.orch.io/node-selector': 'a=b=c' } } });
  return c;
}

/** Runs both phases as the chain does; answers the pod's final selector or the refusal. */
async function run(plugin: PodNodeSelector, namespace: string, selector?: Record<string, string>): Promise<Record<string, string> | ApiError> {
  const p = pod(selector);
  try {
    await plugin.admit(attrs(p, namespace));
    await plugin.validate(attrs(p, namespace));
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    return e;
  }
  return ((p.spec as Record<string, unknown>).nodeSelector as Record<string, string>) ?? {};
}

test('selector text parses as kube parses it', () => {
  assert.deepEqual([...parseSelectorLabels('a=b, c = d')], [['a', 'b'], ['c', 'd']]);
  assert.deepEqual([...parseSelectorLabels('')], []);
  assert.throws(() => parseSelectorLabels('a=b=c'), { message: 'invalid selector: [a b c]' });
  assert.throws(() => parseSelectorLabels('a'), { message: 'invalid selector: [a]' });
  assert.throws(() => parseSelectorLabels('a!=b'), /Invalid value: "a!"/);
  assert.throws(() => parseSelectorLabels('a=' + 'v'.repeat(64)), /must be no more than 63 characters/);
  assert.equal(labelsConflict(new Map([['a', '1']]), new Map([['a', '2']])), true);
  assert.equal(labelsConflict(new Map([['a', '1']]), new Map([['b', '2']])), false);
});

test('the namespace selector, else the cluster default, is merged into new pods; conflicts and whitelist breaches are refused', async () => {
  const config = parsePodNodeSelectorConfig({
    podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'zone=a', prod: 'env=prod,tier=web,disk=ssd', plain: 'zone=a' },
  });
  const plugin = new PodNodeSelector(await client(), config);
  const forbidden = (reason: string) => `pods "p" is forbidden: ${reason}`;
  const conflict = forbidden('pod node label selector conflicts with its namespace node label selector');
  const whitelist = forbidden('pod node label selector labels conflict with its namespace whitelist');
  const cases: [string, string, Record<string, string> | undefined, Record<string, string> | string][] = [
    ['annotation merged', 'prod', undefined, { env: 'prod', tier: 'web' }],
    ['pod adds a whitelisted label', 'prod', { disk: 'ssd' }, { env: 'prod', tier: 'web', disk: 'ssd' }],
    ['pod repeats the namespace label', 'prod', { env: 'prod' }, { env: 'prod', tier: 'web' }],
    ['pod contradicts the namespace', 'prod', { env: 'dev' }, conflict],
    ['pod leaves the whitelist', 'prod', { gpu: 'yes' }, whitelist],
    ['pod whitelisted label with another value', 'prod', { disk: 'hdd' }, whitelist],
    ['cluster default when no annotation', 'plain', undefined, { zone: 'a' }],
    ['cluster default conflict', 'plain', { zone: 'b' }, conflict],
    ['an empty annotation overrides the cluster default', 'open', { zone: 'b' }, { zone: 'b' }],
    ['a namespace without a whitelist allows anything', 'open', { any: 'thing' }, { any: 'thing' }],
  ];
  for (const [name, ns, selector, want] of cases) {
    const got = await run(plugin, ns, selector);
    if (typeof want === 'string') {
      assert.ok(got instanceof ApiError, name);
      assert.equal(got.code, 403, name);
      assert.equal(got.message, want, name);
    } else assert.deepEqual(got, want, name);
  }
  // A broken annotation is an error that is no Status, and admits nothing.
  const broken = await run(plugin, 'broken');
  assert.ok(broken instanceof ApiError && broken.code === 500 && broken.message === 'invalid selector: [a b c]');
  // A missing namespace answers its 404.
  const missing = await run(plugin, 'nowhere');
  assert.ok(missing instanceof ApiError && missing.code === 404);
  // Updates are not judged.
  assert.equal(plugin.handles('UPDATE'), false);
});

test('hostile configurations refuse the start; __proto__ is an ordinary namespace name', () => {
  assert.deepEqual(parsePodNodeSelectorConfig({}).selectors.size, 0);
  assert.deepEqual(parsePodNodeSelectorConfig({ podNodeSelectorPluginConfig: null }).selectors.size, 0);
  assert.throws(() => parsePodNodeSelectorConfig({ podNodeSelectorPluginConfig: ['a=b'] }), /PodNodeSelector configuration: podNodeSelectorPluginConfig must be a map/);
  assert.throws(() => parsePodNodeSelectorConfig({ podNodeSelectorPluginConfig: { ns: 5 } }), /podNodeSelectorPluginConfig\["ns"\] must be a string/);
  assert.throws(() => parsePodNodeSelectorConfig({ podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'a=b=c' } }), /clusterDefaultNodeSelector"\]: invalid selector: \[a b c\]/);
  const hostile = JSON.parse('{"podNodeSelectorPluginConfig":{"__proto__":"a=b","constructor":"c=d"}}') as Record<string, unknown>;
  const config = parsePodNodeSelectorConfig(hostile);
  assert.equal(config.selectors.get('__proto__'), 'a=b');
  assert.equal(config.selectors.get('constructor'), 'c=d');
  assert.equal(config.selectors.get('toString'), undefined);
});
