// PodTolerationRestriction: the toleration algebra (superset, merge, whitelist), namespace
// annotations over the configuration, the memory-pressure toleration, hostile input.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import { FakeClient } from '../testing/fake-client.js';
import {
  isBestEffort,
  isSuperset,
  mergeTolerations,
  parsePodTolerationRestrictionConfig,
  PodTolerationRestriction,
  verifyAgainstWhitelist,
  type Toleration,
} from './pod-toleration-restriction.js';
import type { AdmissionAttributes, AdmissionOperation } from './types.js';

const NS = { group: '', version: 'v1', resource: 'namespaces' };
const API = 'podtolerationrestriction.admission.orch.io/v1';

function attrs(object: KubeObject, namespace: string, operation: AdmissionOperation = 'CREATE'): AdmissionAttributes {
  return {
    operation,
    object,
    ...(operation === 'UPDATE' ? { oldObject: structuredClone(object) } : {}),
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: '',
    namespace,
    name: 'p',
    user: { username: 'alice', groups: [] },
    dryRun: false,
    warnings: [],
  };
}

const T: Record<string, Toleration> = {
  all: { operator: 'Exists' },
  foo: { key: 'foo', operator: 'Exists' },
  fooBar: { key: 'foo', operator: 'Equal', value: 'bar' },
  fooBarEmptyOp: { key: 'foo', value: 'bar' },
  fooNoSched: { key: 'foo', operator: 'Exists', effect: 'NoSchedule' },
  fooNoExec: { key: 'foo', operator: 'Exists', effect: 'NoExecute' },
  fooNoExec10: { key: 'foo', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 },
  fooNoExec0: { key: 'foo', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 0 },
  baz: { key: 'baz', operator: 'Exists' },
};

test('isSuperset, mergeTolerations and verifyAgainstWhitelist follow kube rules', () => {
  const supersets: [string, string, boolean][] = [
    ['all', 'foo', true],
    ['all', 'fooNoExec10', true],
    ['foo', 'fooBar', true],
    ['foo', 'fooNoSched', true],
    ['fooNoSched', 'foo', false],
    ['fooBar', 'foo', false],
    ['fooBar', 'fooBarEmptyOp', true],
    ['fooNoExec', 'fooNoExec10', true],
    ['fooNoExec10', 'fooNoExec', false],
    ['fooNoExec10', 'fooNoExec0', true],
    ['fooNoExec0', 'fooNoExec10', false],
    ['baz', 'foo', false],
  ];
  for (const [ss, t, want] of supersets) assert.equal(isSuperset(T[ss]!, T[t]!), want, `${ss} ⊇ ${t}`);
  assert.deepEqual(mergeTolerations([T.fooBar!, T.baz!], [T.foo!]), [T.baz, T.foo]);
  assert.deepEqual(mergeTolerations([T.foo!], [T.foo!]), [T.foo]);
  assert.deepEqual(mergeTolerations([T.fooNoExec10!], [T.fooNoExec0!]), [T.fooNoExec10]);
  assert.equal(verifyAgainstWhitelist([T.fooBar!, T.fooNoSched!], [T.foo!]), true);
  assert.equal(verifyAgainstWhitelist([T.fooBar!, T.baz!], [T.foo!]), false);
  assert.equal(verifyAgainstWhitelist([T.baz!], []), true);
});

test('BestEffort: no positive cpu or memory request or limit anywhere', () => {
  const c = (resources: unknown) => ({ containers: [{ name: 'a', resources }] });
  assert.equal(isBestEffort(c(undefined)), true);
  assert.equal(isBestEffort(c({ requests: { cpu: '0' } })), true);
  assert.equal(isBestEffort(c({ requests: { 'example.com/gpu': '1' } })), true);
  assert.equal(isBestEffort(c({ limits: { memory: '1Mi' } })), false);
  assert.equal(isBestEffort({ initContainers: [{ name: 'i', resources: { requests: { cpu: '100m' } } }], containers: [] }), false);
});

async function namespaces(): Promise<FakeClient> {
  const c = new FakeClient();
  const ns = (name: string, annotations: Record<string, string> = {}) => c.create(NS, '', { metadata: { name, annotations } });
  await ns('plain');
  await ns('gpu', {
    'scheduler.alpha.orch.io/defaultTolerations': JSON.stringify([{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }]),
    'scheduler.alpha.orch.io/tolerationsWhitelist': JSON.stringify([{ key: 'gpu', operator: 'Exists' }, { key: 'node.orch.io/memory-pressure', operator: 'Exists' }]),
  });
  await ns('none', { 'scheduler.alpha.orch.io/defaultTolerations': '', 'scheduler.alpha.orch.io/tolerationsWhitelist': '' });
  await ns('badjson', { 'scheduler.alpha.orch.io/defaultTolerations': '[{' });
  await ns('notlist', { 'scheduler.alpha.orch.io/defaultTolerations': '{"key":"x"}' });
  await ns('badop', { 'scheduler.alpha.orch.io/tolerationsWhitelist': '[{"key":"x","operator":"Maybe"}]' });
  return c;
}

const pod = (tolerations?: Toleration[], resources?: unknown): KubeObject => ({
  metadata: { name: 'p' },
  spec: { containers: [{ name: 'a', image: 'a', ...(resources ? { resources } : {}) }], ...(tolerations ? { tolerations } : {}) },
});

async function run(plugin: PodTolerationRestriction, p: KubeObject, ns: string, op: AdmissionOperation = 'CREATE'): Promise<Toleration[] | ApiError> {
  try {
    await plugin.admit(attrs(p, ns, op));
    await plugin.validate(attrs(p, ns, op));
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    return e;
  }
  return ((p.spec as Record<string, unknown>).tolerations as Toleration[]) ?? [];
}

test('namespace defaults, else the configuration, are merged on create; whitelists are enforced with their scope', async () => {
  const config = parsePodTolerationRestrictionConfig({
    apiVersion: API,
    kind: 'Configuration',
    default: [{ key: 'cluster', operator: 'Exists', effect: 'NoSchedule' }],
    whitelist: [{ key: 'cluster', operator: 'Exists' }, { key: 'allowed', operator: 'Exists' }, { key: 'node.orch.io/memory-pressure', operator: 'Exists' }],
  });
  const plugin = new PodTolerationRestriction(await namespaces(), config);
  const memory = { key: 'node.orch.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' };
  const conflict = (scope: string) => `pod tolerations (possibly merged with namespace default tolerations) conflict with its ${scope} whitelist`;

  assert.deepEqual(await run(plugin, pod(), 'plain'), [{ key: 'cluster', operator: 'Exists', effect: 'NoSchedule' }]);
  assert.deepEqual(await run(plugin, pod([{ key: 'allowed', operator: 'Equal', value: 'x' }]), 'plain'), [
    { key: 'allowed', operator: 'Equal', value: 'x' },
    { key: 'cluster', operator: 'Exists', effect: 'NoSchedule' },
  ]);
  // A pod toleration that covers the default absorbs it.
  assert.deepEqual(await run(plugin, pod([{ key: 'cluster', operator: 'Exists' }]), 'plain'), [{ key: 'cluster', operator: 'Exists' }]);
  const outside = await run(plugin, pod([{ key: 'other', operator: 'Exists' }]), 'plain');
  assert.ok(outside instanceof ApiError && outside.code === 500 && outside.message === conflict('cluster'));

  // Namespace annotations win over the configuration; not-BestEffort pods get memory-pressure.
  assert.deepEqual(await run(plugin, pod(undefined, { requests: { cpu: '1' } }), 'gpu'), [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }, memory]);
  const notInNamespaceList = await run(plugin, pod([{ key: 'allowed', operator: 'Exists' }]), 'gpu');
  assert.ok(notInNamespaceList instanceof ApiError && notInNamespaceList.message === conflict('namespace'));
  // Empty annotations mean "none" and "anything", overriding the configuration.
  assert.deepEqual(await run(plugin, pod([{ key: 'whatever', operator: 'Exists' }]), 'none'), [{ key: 'whatever', operator: 'Exists' }]);

  // Updates get no defaults but are still judged by the whitelist.
  assert.deepEqual(await run(plugin, pod([{ key: 'allowed', operator: 'Exists' }]), 'plain', 'UPDATE'), [{ key: 'allowed', operator: 'Exists' }]);
  const badUpdate = await run(plugin, pod([{ key: 'other', operator: 'Exists' }]), 'plain', 'UPDATE');
  assert.ok(badUpdate instanceof ApiError && badUpdate.message === conflict('cluster'));
});

test('hostile annotations and configurations are errors, never a silent pass', async () => {
  const plugin = new PodTolerationRestriction(await namespaces(), {});
  for (const ns of ['badjson', 'notlist']) {
    const e = await run(plugin, pod(), ns);
    assert.ok(e instanceof ApiError && e.code === 500, ns);
  }
  const notList = await run(plugin, pod(), 'notlist');
  assert.match((notList as ApiError).message, /cannot unmarshal object into Go value of type \[\]v1\.Toleration/);
  const badOp = await run(plugin, pod([{ key: 'x', operator: 'Exists' }]), 'badop');
  assert.match((badOp as ApiError).message, /operator: Unsupported value: "Maybe"/);

  assert.deepEqual(parsePodTolerationRestrictionConfig({}), {});
  assert.throws(() => parsePodTolerationRestrictionConfig({ kind: 'Other', apiVersion: API }), /expected kind Configuration in podtolerationrestriction\.admission\.orch\.io\/v1/);
  assert.throws(() => parsePodTolerationRestrictionConfig({ kind: 'Configuration', apiVersion: 'podtolerationrestriction.admission.k8s.io/v1' }), /expected kind Configuration/);
  assert.throws(() => parsePodTolerationRestrictionConfig({ kind: 'Configuration', apiVersion: API, default: 'x' }), /default: json: cannot unmarshal string/);
  assert.throws(() => parsePodTolerationRestrictionConfig({ kind: 'Configuration', apiVersion: API, whitelist: [{ key: 1 }] }), /whitelist\[0\]\.key must be a string/);
  assert.throws(() => parsePodTolerationRestrictionConfig({ kind: 'Configuration', apiVersion: API, whitelist: [{ effect: 'Sometimes' }] }), /effect: Unsupported value/);
  const proto = JSON.parse(`{"kind":"Configuration","apiVersion":"${API}","default":[{"__proto__":{"key":"x"},"key":"k","operator":"Exists"}]}`) as Record<string, unknown>;
  const config = parsePodTolerationRestrictionConfig(proto);
  assert.deepEqual(config.default, [{ key: 'k', operator: 'Exists' }]);
  assert.equal(Object.getPrototypeOf(config.default![0]), Object.prototype);
});
